import Fastify from 'fastify';
import { registerSpa } from '../src/server/http/spa.ts';
const app = Fastify();
await registerSpa(app, '/work/main/dist/web');
await app.ready();
const f = (await import('node:fs')).readdirSync('dist/web/assets');
for (const name of [f.find((x) => x.endsWith('.js'))!, f.find((x) => x.endsWith('.css'))!, f.find((x) => x.endsWith('.map'))!]) {
  for (const enc of ['br, gzip', undefined]) {
    const r = await app.inject({ url: `/assets/${name}`, headers: enc ? { 'accept-encoding': enc } : {} });
    console.log(name, enc, r.statusCode, JSON.stringify(r.headers));
  }
}
const r = await app.inject({ url: '/assets/nope-123.js' });
console.log('missing', r.statusCode, r.headers['content-type']);
const r2 = await app.inject({ url: `/assets/${f[0]}`, headers: { 'if-none-match': (await app.inject({ url: `/assets/${f[0]}` })).headers.etag as string } });
console.log('304?', r2.statusCode);
