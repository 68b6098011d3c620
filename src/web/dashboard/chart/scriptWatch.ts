// Third-party chart scripts (TradingView, Barchart) fail quietly: offline, blocked by an ad
// blocker, or so slow they never arrive. watchScript reports a failure on the script's error
// event, or when its load event has not fired within the timeout. A script that loaded counts as
// success (whether it then builds a widget is the vendor's business); one that loads after the
// timeout reports onLoad, so a slow network recovers on its own.
export const SCRIPT_TIMEOUT_MS = 10_000;

export type ScriptFailure = 'error' | 'timeout';

export function watchScript(
  script: HTMLScriptElement,
  handlers: { onLoad?: () => void; onFail: (reason: ScriptFailure) => void },
  timeoutMs = SCRIPT_TIMEOUT_MS,
): () => void {
  let loaded = false;
  let stopped = false;
  const timer = setTimeout(() => {
    if (!stopped && !loaded) handlers.onFail('timeout');
  }, timeoutMs);
  const onLoad = () => {
    if (stopped) return;
    loaded = true;
    clearTimeout(timer);
    handlers.onLoad?.();
  };
  const onError = () => {
    if (stopped) return;
    clearTimeout(timer);
    handlers.onFail('error');
  };
  script.addEventListener('load', onLoad);
  script.addEventListener('error', onError);
  return () => {
    stopped = true;
    clearTimeout(timer);
    script.removeEventListener('load', onLoad);
    script.removeEventListener('error', onError);
  };
}
