// Security headers for every response: helmet with a Content-Security-Policy that allows
// exactly the third-party origins the product embeds (TradingView, Barchart, Stripe, Google
// Sheets, and the two configurable embed pages) and nothing else.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { BOOT_SCRIPT } from '../../shared/bootScript.ts';
import type { Config } from '../config.ts';
import { isJsonReply } from './compression.ts';

export const THIRD_PARTY_ORIGINS = {
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
export const BOOT_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(BOOT_SCRIPT).digest('base64')}'`;

function originOf(url: string | undefined): string[] {
  return url ? [new URL(url).origin] : [];
}

export function helmetOptions(config: Config): HelmetOptions {
  const { tradingView, barchart, stripe, googleSheets } = THIRD_PARTY_ORIGINS;
  const embeds = [...originOf(config.SPREADSHEET_EMBED_URL), ...originOf(config.DEMO_TRADING_EMBED_URL)];
  const https = config.publicUrl.startsWith('https://');
  return {
    // The TradingView and Barchart embeds run in their own frames and need our page to be
    // framable by nobody but ourselves; cross-origin embedder isolation would break them.
    crossOriginEmbedderPolicy: false,
    // No referrer leaves the origin, as with no-referrer; but under no-referrer browsers send
    // `Origin: null` on the app's own form posts (the TEST MODE checkout), and over plain http
    // on a LAN address no Sec-Fetch-Site either, so the CSRF guard (csrf.ts) could not tell
    // them from a forgery. same-origin keeps the real Origin on same-origin requests.
    referrerPolicy: { policy: 'same-origin' },
    hsts: https,
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

/** The headers helmet sets for these options, computed once by running it on a recording response. */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure instanceof Error ? failure : new Error(`helmet failed: ${JSON.stringify(failure)}`);
  return headers;
}

/**
 * The Content-Security-Policy of a JSON answer. A browser applies a CSP only to a document, and
 * a JSON answer becomes one only when opened on its own: then it may load nothing and be framed
 * by nobody but our pages. The pages' policy (about 1.3 kB with its third-party origins) would
 * allow more and was sent with every API answer, most of the bytes a cached market answer's
 * headers carried.
 */
export const JSON_CSP = "default-src 'none'; frame-ancestors 'self'";

/**
 * Sets helmet's headers on every response. @fastify/helmet rebuilds helmet's middleware
 * (and re-parses the CSP) on every request; the options never change at run time, so the
 * headers are computed once here and copied onto each reply. A JSON answer's CSP is JSON_CSP
 * (decided once the answer's type is known, as it is sent); helmet's other headers stay.
 */
export function installSecurityHeaders(app: FastifyInstance, config: Config): void {
  const headers = securityHeaders(helmetOptions(config));
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isJsonReply(reply)) reply.header('content-security-policy', JSON_CSP);
    done(null, payload);
  });
}
