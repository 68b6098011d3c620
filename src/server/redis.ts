// One Redis connection factory (REDIS_URL): shared rate limits and live fan-out across
// instances. Without REDIS_URL those features run in-process.
import { Redis } from 'ioredis';

export function createRedis(url: string): Redis {
  // Fail fast instead of queueing commands forever when Redis is down: rate limiting then
  // answers from the error path rather than hanging a login.
  return new Redis(url, {
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}
