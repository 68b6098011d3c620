// The dashboard API scope: every route registered here answers 401 without a user and 403
// without an active, non-expired subscription (the guard of guards.ts). One hook, so no route
// can forget the check; the composition root registers every dashboard feature inside it.
import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import type { Auth } from './auth.ts';
import { requireSubscription, type SubscriptionAccess } from './guards.ts';

/** A dashboard feature: its route plugin with options checked against what the plugin takes. */
export interface DashboardFeature {
  register(scope: FastifyInstance): Promise<void>;
}

export function dashboardFeature<Options extends FastifyPluginOptions>(
  plugin: FastifyPluginAsync<Options>,
  options: Options,
): DashboardFeature {
  return {
    async register(scope) {
      await scope.register(plugin, options);
    },
  };
}

export async function registerDashboardApi(
  app: FastifyInstance,
  options: {
    auth: Auth;
    subscriptionAccess: SubscriptionAccess;
    features: DashboardFeature[];
  },
): Promise<void> {
  await app.register(async (scope) => {
    // onRequest: before any body is read or validated, so a visitor's upload is never parsed.
    scope.addHook('onRequest', requireSubscription(options.auth, options.subscriptionAccess));
    // The app's own onRoute hook (inherited, so it ran first) listed the route; mark it.
    scope.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        const entry = app.routeTable.findLast(
          (candidate) => candidate.method === method && candidate.url === route.url,
        );
        if (entry) entry.dashboard = true;
      }
    });
    for (const feature of options.features) await feature.register(scope);
  });
}
