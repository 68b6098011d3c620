// The scanner's server state (issue 36): running a scan (POST /api/scans/run), the presets
// (GET /api/scans/presets), the trader's saved scans (GET/POST/PUT/DELETE /api/scans) with their
// "alert me when a symbol enters this scan" rule (POST/DELETE /api/scans/:id/alert), and the
// setup study (POST /api/studies), whose 429 (one study at a time per trader) is told apart
// with the seconds its Retry-After header asks to wait.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import type { RuleChannel } from '../../../shared/schemas/alertRules.ts';
import {
  savedScan,
  savedScanList,
  scanResponse,
  studyResponse,
  type SavedScan,
  type SavedScanBody,
  type ScanPreset,
  type ScanRequest,
  type StudyRequest,
  type StudyResponse,
} from '../../../shared/schemas/scans.ts';
import { ApiError, apiFetch, apiSend, parseBody } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/**
 * The presets' answer. ScanPreset is a TypeScript interface on the contract (the server builds
 * the presets itself), so the browser checks the parts it reads and leaves the conditions to
 * the form, which runs them through the shared schema before any scan is sent.
 */
const presetList = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    timeframe: savedScan.shape.timeframe,
    conditions: savedScan.shape.conditions,
  }),
);

export function useScanPresets() {
  return useQuery({
    queryKey: queryKeys.scans.presets,
    queryFn: (): Promise<ScanPreset[]> => apiFetch('/api/scans/presets', presetList),
    staleTime: Infinity,
  });
}

export function useRunScan() {
  return useMutation({
    mutationFn: (request: ScanRequest) => apiSend('POST', '/api/scans/run', scanResponse, request),
  });
}

export function useSavedScans() {
  return useQuery({
    queryKey: queryKeys.scans.saved,
    queryFn: async () => (await apiFetch('/api/scans', savedScanList)).scans,
  });
}

/** Saves, updates, deletes a scan and turns its entry alert on or off; each keeps the list as the server has it. */
export function useSavedScanActions() {
  const queryClient = useQueryClient();
  const replace = (scan: SavedScan) =>
    queryClient.setQueryData<SavedScan[]>(queryKeys.scans.saved, (current) =>
      current?.some((entry) => entry.id === scan.id)
        ? current.map((entry) => (entry.id === scan.id ? scan : entry))
        : [...(current ?? []), scan],
    );
  const save = useMutation({
    mutationFn: (body: SavedScanBody) => apiSend('POST', '/api/scans', savedScan, body),
    onSuccess: replace,
  });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: number; body: SavedScanBody }) =>
      apiSend('PUT', `/api/scans/${id}`, savedScan, body),
    onSuccess: replace,
  });
  const remove = useMutation({
    mutationFn: (id: number) => apiFetch(`/api/scans/${id}`, null, { method: 'DELETE' }),
    onSuccess: (_nothing, id) =>
      queryClient.setQueryData<SavedScan[]>(queryKeys.scans.saved, (current) =>
        current?.filter((entry) => entry.id !== id),
      ),
  });
  const alert = useMutation({
    // Both answer the saved scan as it now is (alertRuleId set, or null).
    mutationFn: ({ id, channels }: { id: number; channels: RuleChannel[] | null }) =>
      channels
        ? apiSend('POST', `/api/scans/${id}/alert`, savedScan, { channels })
        : apiSend('DELETE', `/api/scans/${id}/alert`, savedScan),
    onSuccess: (scan) => {
      // The rule lives with the trader's other rules: the rules panel lists it too.
      void queryClient.invalidateQueries({ queryKey: queryKeys.rules.list });
      replace(scan);
    },
  });
  return { save, update, remove, alert };
}

/** The server runs one study at a time per trader: it answers 429 with the seconds to wait. */
class StudyBusyError extends ApiError {
  constructor(readonly retryAfterSeconds: number | null) {
    super(
      429,
      retryAfterSeconds === null
        ? 'A study is already running; try again in a moment'
        : `A study is already running; try again in ${retryAfterSeconds} s`,
    );
  }
}

/** Retry-After as whole seconds: delay-seconds or an HTTP date (RFC 9110), null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * POST /api/studies. Not apiSend: the 429's Retry-After header is the one figure the message
 * needs and apiFetch keeps only the body; every other answer is read as apiFetch reads it.
 */
async function runStudy(request: StudyRequest): Promise<StudyResponse> {
  const response = await fetch('/api/studies', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(request),
  });
  if (response.status === 429) throw new StudyBusyError(retryAfterSeconds(response.headers.get('Retry-After')));
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = (body as { error?: unknown } | undefined)?.error;
    throw new ApiError(response.status, typeof message === 'string' ? message : `API error: ${response.status}`);
  }
  return parseBody(studyResponse, response.status, body);
}

export function useStudy() {
  return useMutation({ mutationFn: runStudy });
}
