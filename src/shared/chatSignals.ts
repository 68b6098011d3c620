// docs/SPEC.md chat rules shared by the chat panel and the assistant: when an assistant message
// gets a WATOS grid, and which ticker the grid is for.

/** An assistant message mentioning these gets a WATOS grid below it. */
export function mentionsWatos(message: string): boolean {
  return /watos|trading signal|opportunity signals/i.test(message);
}

/** The first run of 2 to 5 capital letters in the message, or BTC if none. */
export function extractTicker(message: string): string {
  return /(?<![A-Z])[A-Z]{2,5}(?![A-Z])/.exec(message)?.[0] ?? 'BTC';
}
