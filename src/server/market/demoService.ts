// The demo provider's surface for worker threads (the setup studies' pool draws demo histories):
// what they need of the market feature without loading service.ts's whole import graph (the
// store, the upstream clients, the router), which costs a worker's start some 0.75 s under tsx.
export { demoCandleColumns, type DemoColumns } from './demoFeed.ts';
export type { Granularity } from './types.ts';
