// The webhook part of the rule form: the receiver's URL with a "Send test" button, and the
// secret every webhook of this trader is signed with (shown, copyable, rotatable), with the
// header it travels in.
import { useState } from 'react';
import { useRotateWebhookSecret, useWebhookSecret, useWebhookTest } from './rulesApi.ts';

const field =
  'w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-sm text-white placeholder-gray-500 focus:border-indigo-500 focus:outline-none';
const smallButton =
  'shrink-0 rounded border border-gray-600 px-2 py-1 text-xs text-gray-200 hover:bg-gray-800 disabled:opacity-60';

export function WebhookSettings({
  url,
  onUrlChange,
  inputId,
  error,
  errorId,
}: {
  url: string;
  onUrlChange: (url: string) => void;
  inputId: string;
  error?: string;
  errorId: string;
}) {
  const secret = useWebhookSecret(true);
  const rotate = useRotateWebhookSecret();
  const test = useWebhookTest();
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [copied, setCopied] = useState(false);

  async function copy() {
    if (!secret.data) return;
    try {
      await navigator.clipboard.writeText(secret.data.secret);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  }

  return (
    <div className="mt-2 space-y-2 rounded border border-gray-800 bg-gray-950/40 p-2">
      <div>
        <label htmlFor={inputId} className="block text-xs text-gray-400">
          Webhook URL
        </label>
        <div className="flex gap-2">
          <input
            id={inputId}
            type="url"
            inputMode="url"
            value={url}
            placeholder="https://example.com/hooks/alerts"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(event) => {
              onUrlChange(event.target.value);
              test.reset();
            }}
            className={field}
          />
          <button
            type="button"
            className={smallButton}
            disabled={!url.trim() || test.isPending}
            onClick={() => test.mutate(url.trim())}
          >
            {test.isPending ? 'Sending...' : 'Send test'}
          </button>
        </div>
        {error && (
          <p id={errorId} className="mt-1 text-xs text-red-300">
            {error}
          </p>
        )}
        {test.isError && (
          <p role="alert" className="mt-1 text-xs text-red-300">
            Test not sent: {test.error.message}
          </p>
        )}
        {test.data && (
          <p role="status" className={`mt-1 text-xs ${test.data.ok ? 'text-green-300' : 'text-red-300'}`}>
            {test.data.ok
              ? `Test delivered: HTTP ${test.data.status ?? ''} in ${test.data.latencyMs} ms`
              : `Test failed${test.data.status ? ` (HTTP ${test.data.status})` : ''}: ${test.data.error ?? 'no answer'}`}
          </p>
        )}
      </div>
      <div>
        <p className="text-xs text-gray-400">
          Signing secret{secret.data ? ` (HMAC-SHA256 in the ${secret.data.header} header)` : ''}
        </p>
        {secret.isPending && <p className="text-xs text-gray-400">Loading...</p>}
        {secret.isError && (
          <p role="alert" className="text-xs text-red-300">
            {secret.error.message}
          </p>
        )}
        {secret.data && (
          <div className="flex gap-2">
            <input
              readOnly
              aria-label="Webhook signing secret"
              value={secret.data.secret}
              className={`${field} font-mono text-xs`}
              onFocus={(event) => event.target.select()}
            />
            <button type="button" className={smallButton} onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy'}
            </button>
            {confirmRotate ? (
              <>
                <button
                  type="button"
                  className="shrink-0 rounded bg-red-700 px-2 py-1 text-xs text-white hover:bg-red-600"
                  disabled={rotate.isPending}
                  onClick={() => rotate.mutate(undefined, { onSettled: () => setConfirmRotate(false) })}
                >
                  Rotate now
                </button>
                <button type="button" className={smallButton} onClick={() => setConfirmRotate(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" className={smallButton} onClick={() => setConfirmRotate(true)}>
                Rotate
              </button>
            )}
          </div>
        )}
        {confirmRotate && (
          <p role="alert" className="mt-1 text-xs text-amber-300">
            A new secret replaces this one for all your webhooks: receivers checking the old one will reject them.
          </p>
        )}
        {rotate.isError && (
          <p role="alert" className="mt-1 text-xs text-red-300">
            {rotate.error.message}
          </p>
        )}
      </div>
    </div>
  );
}
