// Loading a route's code (a lazy chunk) within docs/SPEC.md's chunk load timeout (120 s). A chunk
// that does not arrive in time, or whose download fails, becomes a ChunkLoadError, which the
// route tree's ErrorPage shows with a retry (a reload: browsers keep a failed module import
// failed for the rest of the page's life, so only a fresh page can fetch it again).
import { CHUNK_LOAD_TIMEOUT_MS } from '../shared/constants.ts';

export const CHUNK_TIMEOUT_MESSAGE = 'This page is taking too long to load. Check your connection and try again.';
export const CHUNK_FAILED_MESSAGE = 'This page could not be loaded. Check your connection and try again.';

export class ChunkLoadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ChunkLoadError';
  }
}

export function loadWithin<T>(load: () => Promise<T>, timeoutMs: number = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError(CHUNK_TIMEOUT_MESSAGE)), timeoutMs);
    load().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new ChunkLoadError(CHUNK_FAILED_MESSAGE, { cause: error }));
      },
    );
  });
}
