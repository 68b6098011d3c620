// Security headers for every response: @fastify/helmet with a Content-Security-Policy that
// allows exactly the third-party origins the product embeds (TradingView, Barchart, Stripe,
// Google Sheets, and the two configurable embed pages) and nothing else; a JSON answer carries
// a stricter policy of its own.
import { createHash } from 'node:crypto';
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { BOOT_SCRIPT } from '../../shared/bootScript.ts';
import type { Config } from '../config.ts';

const THIRD_PARTY_ORIGINS = {
  tradingView: ['https://s3.tradingview.com', 'https://*.tradingview.com', 'https://*.tradingview-widget.com'],
  barchart: ['https://*.barchart.com', 'https://*.barchartcontent.com'],
  stripe: [
    'https://js.stripe.com',
    'https://*.js.stripe.com',
    'https://api.stripe.com',
    'https://checkout.stripe.com',
    'https://hooks.stripe.com',
  ],
  googleSheets: ['https://docs.google.com'],
} as const;

/**
 * The CSP source for the one inline script of landing.html and the dashboard's HTML (each asks
 * for its modules with it once painted): that exact text, by its hash; any other inline script
 * stays blocked.
 */
const BOOT_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(BOOT_SCRIPT).digest('base64')}'`;

function originOf(url: string | undefined): string[] {
  return url ? [new URL(url).origin] : [];
}

function helmetOptions(config: Config): FastifyHelmetOptions {
  const { tradingView, barchart, stripe, googleSheets } = THIRD_PARTY_ORIGINS;
  const embeds = [...originOf(config.SPREADSHEET_EMBED_URL), ...originOf(config.DEMO_TRADING_EMBED_URL)];
  const https = config.publicUrl.startsWith('https://');
  return {
    global: true,
    // The TradingView and Barchart embeds run in their own frames and need our page to be
    // framable by nobody but ourselves; cross-origin embedder isolation would break them.
    crossOriginEmbedderPolicy: false,
    // No referrer leaves the origin, as with no-referrer; but under no-referrer browsers send
    // `Origin: null` on the app's own form posts (the TEST MODE checkout), and over plain http
    // on a LAN address no Sec-Fetch-Site either, so the CSRF guard (csrf.ts) could not tell
    // them from a forgery. same-origin keeps the real Origin on same-origin requests.
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        formAction: ["'self'", 'https://checkout.stripe.com'],
        scriptSrc: ["'self'", BOOT_SCRIPT_SOURCE, tradingView[0], ...barchart, stripe[0], stripe[1]],
        // The chart widgets set inline styles on the nodes they create.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', ...tradingView, ...barchart, 'https://*.stripe.com'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...tradingView, ...barchart, 'https://api.stripe.com'],
        frameSrc: ["'self'", ...tradingView, ...barchart, ...stripe, ...googleSheets, ...embeds],
        workerSrc: ["'self'", 'blob:'],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
  };
}

/**
 * The Content-Security-Policy of a JSON answer. A browser applies a CSP only to a document, and
 * a JSON answer becomes one only when opened on its own: then it may load nothing and be framed
 * by nobody but our pages. The pages' policy (about 1.3 kB with its third-party origins) would
 * allow more and was sent with every API answer, most of the bytes a cached market answer's
 * headers carried.
 */
export const JSON_CSP = "default-src 'none'; frame-ancestors 'self'";

/** Whether the reply's content type is JSON (application/json or a +json type). */
function isJsonReply(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);
}

async function securityHeadersPlugin(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(fastifyHelmet, helmetOptions(config));
  // Decided once the answer's type is known, as it is sent; helmet's other headers stay.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isJsonReply(reply)) reply.header('content-security-policy', JSON_CSP);
    done(null, payload);
  });
}

/** Registered with the app's config as its options. */
export const securityHeaders = fp(securityHeadersPlugin, { name: 'watos-security-headers', fastify: '5.x' });
