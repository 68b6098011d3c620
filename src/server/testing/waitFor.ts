// Polling for tests and benches: waits until `probe` answers something truthy and answers that
// value, or fails naming what it waited for. `intervalMs` spaces the probes (a probe that asks a
// busy server over HTTP should not ask 50 times a second).
export async function waitFor<T>(
  probe: () => Promise<T | false | null | undefined> | T | false | null | undefined,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
