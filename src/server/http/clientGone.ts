// Long request work (a backtest, a setup study) that stops when its client goes away: the
// signal aborts when the response closes before the answer was sent (the connection went
// first), never after a sent answer.
import type { FastifyReply } from 'fastify';

export async function whileClientWaits<T>(reply: FastifyReply, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const cancel = new AbortController();
  const closed = () => {
    if (!reply.raw.writableFinished) cancel.abort();
  };
  reply.raw.once('close', closed);
  try {
    return await work(cancel.signal);
  } finally {
    reply.raw.off('close', closed);
  }
}
