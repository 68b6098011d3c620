// The scanner's API (issue 36), under the dashboard's gate (signed in, subscribed):
//   POST /api/scans/run, GET /api/scans/presets,
//   GET/POST /api/scans, PUT/DELETE /api/scans/:id (own scans only: another user's is a 404),
//   POST/DELETE /api/scans/:id/alert ("alert me when a symbol enters this scan").
// Bodies are checked with the shared schemas, so an error names its field ("conditions.0.level:
// level must be between 0 and 100").
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RULE_CHANNELS } from '../../shared/schemas/alertRules.ts';
import { int32PathId } from '../../shared/schemas/pathIds.ts';
import {
  savedScan,
  savedScanBody,
  savedScanList,
  scanRequest,
  scanResponse,
  type ScanPreset,
} from '../../shared/schemas/scans.ts';
import { requireUser } from '../http/requestUser.ts';
import { SCAN_PRESETS } from './presets.ts';
import type { ScanService } from './service.ts';

const scanIdParams = z.object({ id: int32PathId });
const scanAlertBody = z.object({
  channels: z
    .array(
      z.enum(RULE_CHANNELS.filter((channel) => channel !== 'webhook') as ['in_app', 'email', 'push'], {
        error: 'channels must be among in_app, email, push',
      }),
    )
    .min(1, 'channels must name at least one channel')
    .default(['in_app'])
    .transform((channels) => [...new Set(channels)]),
});

// The presets' response: the request schema's conditions, named.
const scanPresetList = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    timeframe: scanRequest.shape.timeframe,
    conditions: scanRequest.shape.conditions,
  }),
);

export async function scanRoutes(app: FastifyInstance, options: { scans: ScanService }): Promise<void> {
  const { scans } = options;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post('/api/scans/run', { schema: { body: scanRequest, response: { 200: scanResponse } } }, async (request) =>
    scans.run(request.body),
  );
  routes.get(
    '/api/scans/presets',
    { schema: { response: { 200: scanPresetList } } },
    async (): Promise<ScanPreset[]> => [...SCAN_PRESETS],
  );
  routes.get('/api/scans', { schema: { response: { 200: savedScanList } } }, async (request) => ({
    scans: await scans.list(requireUser(request).id),
  }));
  routes.post('/api/scans', { schema: { body: savedScanBody, response: { 201: savedScan } } }, async (request, reply) =>
    reply.code(201).send(await scans.create(requireUser(request).id, request.body)),
  );
  routes.put(
    '/api/scans/:id',
    { schema: { params: scanIdParams, body: savedScanBody, response: { 200: savedScan } } },
    async (request) => scans.update(requireUser(request).id, request.params.id, request.body),
  );
  routes.delete(
    '/api/scans/:id',
    { schema: { params: scanIdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await scans.remove(requireUser(request).id, request.params.id);
      return reply.code(204).send(null);
    },
  );
  routes.post(
    '/api/scans/:id/alert',
    { schema: { params: scanIdParams, body: scanAlertBody, response: { 200: savedScan } } },
    async (request) => scans.createAlert(requireUser(request).id, request.params.id, request.body.channels),
  );
  routes.delete(
    '/api/scans/:id/alert',
    { schema: { params: scanIdParams, response: { 200: savedScan } } },
    async (request) => scans.deleteAlert(requireUser(request).id, request.params.id),
  );
}
