// A local fake of Coinbase's public APIs on 127.0.0.1 with the recorded response shapes of
// the price API and the Exchange candles API, plus switches for the failures a real upstream
// shows: slowness, 429s, 5xx, garbage JSON, and products it does not know.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

type FakeBehaviour = 'ok' | 'slow' | 'rate-limited' | 'server-error' | 'garbage' | 'unknown-product';

export interface FakeCoinbase {
  url: string;
  /** Requests seen, by path (without query). */
  requests: string[];
  prices: Map<string, number>;
  /** Behaviour for one product id, or '*' for all. */
  behave(productId: string, behaviour: FakeBehaviour, times?: number): void;
  close(): Promise<void>;
}

export async function startFakeCoinbase(initialPrices: Record<string, number> = {}): Promise<FakeCoinbase> {
  const prices = new Map(Object.entries(initialPrices));
  const behaviours = new Map<string, { behaviour: FakeBehaviour; remaining: number }>();
  const requests: string[] = [];

  function behaviourFor(productId: string): FakeBehaviour {
    for (const key of [productId, '*']) {
      const entry = behaviours.get(key);
      if (entry && entry.remaining > 0) {
        entry.remaining -= 1;
        return entry.behaviour;
      }
    }
    return 'ok';
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(url.pathname);
    const price = /^\/v2\/prices\/([A-Z0-9-]+)\/(spot|buy|sell)$/.exec(url.pathname);
    const candles = /^\/products\/([A-Z0-9-]+)\/candles$/.exec(url.pathname);
    const productId = price?.[1] ?? candles?.[1];
    if (!productId) return send(res, 404, { message: 'Not found' });

    const behaviour = behaviourFor(productId);
    if (behaviour === 'slow') return void setTimeout(() => send(res, 200, { data: { amount: '1' } }), 10_000);
    if (behaviour === 'rate-limited') return send(res, 429, { message: 'Too many requests' }, { 'retry-after': '0' });
    if (behaviour === 'server-error') return send(res, 503, { message: 'Service unavailable' });
    if (behaviour === 'garbage') return send(res, 200, '{"data": {"amount": ');
    const spot = prices.get(productId);
    if (behaviour === 'unknown-product' || spot === undefined) {
      return send(res, 404, { errors: [{ id: 'not_found', message: 'Invalid currency' }] });
    }

    if (price) {
      const kind = price[2];
      const amount = kind === 'buy' ? spot * 1.005 : kind === 'sell' ? spot * 0.995 : spot;
      const [base, currency] = productId.split('-');
      return send(res, 200, { data: { amount: amount.toFixed(8), base, currency } });
    }
    // Exchange candles: newest first, [time, low, high, open, close, volume], at most 300.
    const granularity = Number(url.searchParams.get('granularity'));
    const start = Date.parse(url.searchParams.get('start') ?? '') / 1000;
    const end = Date.parse(url.searchParams.get('end') ?? '') / 1000;
    if (![60, 300, 900, 3600, 21600, 86400].includes(granularity) || !Number.isFinite(start) || !Number.isFinite(end)) {
      return send(res, 400, { message: 'Invalid granularity or time range' });
    }
    const rows: number[][] = [];
    const first = Math.ceil(start / granularity) * granularity;
    for (let time = first; time < end && rows.length < 300; time += granularity) {
      const wave = spot * (1 + 0.01 * Math.sin(time / granularity / 7));
      rows.push([time, wave * 0.998, wave * 1.002, wave * 0.999, wave, 10 + ((time / granularity) % 5)]);
    }
    return send(res, 200, rows.reverse());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    prices,
    behave(productId, behaviour, times = Number.POSITIVE_INFINITY) {
      behaviours.set(productId, { behaviour, remaining: times });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
