// The dashboard API scope: every route registered here answers 401 without a user and 403
// without an active, non-expired subscription. One hook, so no route can forget the check.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Auth } from '../auth/auth.ts';
import { requireSubscription } from '../auth/guards.ts';
import type { Database } from '../db/client.ts';

export async function registerDashboardApi(
  app: FastifyInstance,
  options: { auth: Auth; db: Database; features: Array<[FastifyPluginAsync<never>, object]> },
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preHandler', requireSubscription(options.auth, options.db));
    for (const [plugin, pluginOptions] of options.features) {
      await scope.register(plugin, pluginOptions as never);
    }
  });
}
