// The one reading of multipart failures (My Stuff's POST /upload, the assistant's /api/chat
// and /external-api/prompt): what @fastify/multipart and busboy throw while a form is read,
// turned into the answer the sender can act on. Each caller names its own texts; the
// classification is here once.
import { DomainError, invalid } from '../errors/domain.ts';
import { HttpError } from './errors.ts';

export interface MultipartTexts {
  /** A file part passed the `fileSize` limit. */
  fileTooLarge: () => Error;
  /** More file parts than the `files` limit. */
  tooManyFiles: string;
  /** More parts or fields than allowed; without it Fastify's own 413 answers. */
  tooManyFields?: string;
  /** A malformed body (no boundary, a cut-off part). */
  malformed: string;
  /**
   * A failure that is neither the form's fault nor Fastify's (storage down while a part was
   * streamed into it); without it, such a failure is read as a malformed form.
   */
  otherFailure?: (error: unknown) => Error;
}

/** busboy reports a malformed body with plain errors, recognisable by their message. */
const BUSBOY_MALFORMED = /multipart|boundary|end of form|part header/i;

/** The error to throw for a failure while reading a multipart body. */
export function multipartFailure(error: unknown, texts: MultipartTexts): unknown {
  if (error instanceof DomainError || error instanceof HttpError) return error;
  const { code, statusCode, message } = (error ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return texts.fileTooLarge();
  if (code === 'FST_FILES_LIMIT') return invalid(texts.tooManyFiles);
  if ((code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') && texts.tooManyFields)
    return invalid(texts.tooManyFields);
  // Fastify's other multipart errors carry their own status and text.
  if (typeof code === 'string' && code.startsWith('FST_')) return error;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return error;
  if (!texts.otherFailure || BUSBOY_MALFORMED.test(String(message))) return invalid(texts.malformed);
  return texts.otherFailure(error);
}
