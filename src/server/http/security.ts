// Security headers for every response: helmet with a Content-Security-Policy that allows
// exactly the third-party origins the product embeds (TradingView, Barchart, Stripe, Google
// Sheets, and the two configurable embed pages) and nothing else.
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { Config } from '../config.ts';

export const THIRD_PARTY_ORIGINS = {
  tradingView: ['https://s3.tradingview.com', 'https://*.tradingview.com', 'https://*.tradingview-widget.com'],
  barchart: ['https://*.barchart.com', 'https://*.barchartcontent.com'],
  stripe: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://api.stripe.com', 'https://checkout.stripe.com', 'https://hooks.stripe.com'],
  googleSheets: ['https://docs.google.com'],
} as const;

function originOf(url: string | undefined): string[] {
  return url ? [new URL(url).origin] : [];
}

export function helmetOptions(config: Config): FastifyHelmetOptions {
  const { tradingView, barchart, stripe, googleSheets } = THIRD_PARTY_ORIGINS;
  const embeds = [...originOf(config.SPREADSHEET_EMBED_URL), ...originOf(config.DEMO_TRADING_EMBED_URL)];
  const https = config.publicUrl.startsWith('https://');
  return {
    // The TradingView and Barchart embeds run in their own frames and need our page to be
    // framable by nobody but ourselves; cross-origin embedder isolation would break them.
    crossOriginEmbedderPolicy: false,
    hsts: https,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        formAction: ["'self'", 'https://checkout.stripe.com'],
        scriptSrc: ["'self'", tradingView[0], ...barchart, stripe[0], stripe[1]],
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
