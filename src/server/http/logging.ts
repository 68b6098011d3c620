// Request logging with pino through Fastify. Never logs secrets: cookies, authorization
// headers and credential-bearing query parameters (reset tokens, API keys) are redacted.
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';

const SECRET_QUERY_KEYS = /^(token|code|key|apikey|api_key|password|secret|session_id|callbackurl)$/i;

export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const params = new URLSearchParams(url.slice(question + 1));
  for (const key of [...params.keys()]) {
    if (SECRET_QUERY_KEYS.test(key)) params.set(key, '[redacted]');
  }
  return `${url.slice(0, question)}?${params.toString()}`;
}

export function loggerOptions(config: Config): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.apiKey'],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), ip: request.ip, id: request.id };
      },
    },
  };
}
