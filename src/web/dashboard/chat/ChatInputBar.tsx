// docs/SPEC.md input bar: an attach button (tooltip 'Attach option chain file') over a hidden file
// input accepting .csv, .xlsx and .xls, a multi-line box with docs/SPEC.md's placeholder, and a send
// button; an attached file shows as a chip with its name and a remove button. Enter sends,
// Shift+Enter starts a new line. The text stays in the box until the answer has arrived. The box
// starts one row tall and grows with its text up to six rows, then scrolls.
import { useLayoutEffect, useRef } from 'react';
import {
  CHAT_ATTACH_ACCEPT,
  CHAT_ATTACH_TOOLTIP,
  CHAT_INPUT_PLACEHOLDER,
  PROMPT_MAX_CHARS,
} from '../../../shared/schemas/chat.ts';
import { useAssistant, useChatInput } from './AssistantProvider.tsx';

/** The most rows the message box grows to before it scrolls. */
export const CHAT_INPUT_MAX_ROWS = 6;

/** Fits the box's height to its text, between one row and CHAT_INPUT_MAX_ROWS rows. */
export function fitToText(box: HTMLTextAreaElement) {
  const style = getComputedStyle(box);
  const px = (value: string) => parseFloat(value) || 0;
  const line = px(style.lineHeight) || 20;
  const padding = px(style.paddingTop) + px(style.paddingBottom);
  const border = px(style.borderTopWidth) + px(style.borderBottomWidth);
  const max = line * CHAT_INPUT_MAX_ROWS + padding + border;
  box.style.height = 'auto';
  // Border-box sizing: the height holds the border; scrollHeight holds the text and padding.
  const wanted = Math.max(box.scrollHeight, line + padding) + border;
  box.style.height = `${Math.min(wanted, max)}px`;
  box.style.overflowY = wanted > max ? 'auto' : 'hidden';
}

export function ChatInputBar({ className = '' }: { className?: string }) {
  const { attachment, attach, removeAttachment, send, sending, inputRef, loading } = useAssistant();
  const { input, setInput } = useChatInput();
  const picker = useRef<HTMLInputElement | null>(null);

  useLayoutEffect(() => {
    if (inputRef.current) fitToText(inputRef.current);
  }, [input, inputRef]);

  return (
    <form
      className={`flex flex-col gap-2 rounded-lg bg-gray-900 p-3 ${className}`}
      aria-label="Chat input"
      data-tour="chat-input"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {attachment ? (
        <div className="flex">
          <span
            className="flex max-w-full items-center gap-1.5 rounded-full border border-indigo-500/60 bg-indigo-500/15 py-0.5 pl-3 pr-1 text-xs text-indigo-100"
            data-testid="attachment-chip"
          >
            <svg
              viewBox="0 0 24 24"
              className="h-3.5 w-3.5 shrink-0"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              aria-hidden
            >
              <path d="M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8z" />
              <path d="M14 3v5h5" />
            </svg>
            <span className="truncate">{attachment.name}</span>
            <button
              type="button"
              onClick={removeAttachment}
              disabled={sending}
              className="flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-indigo-200 hover:bg-indigo-500/30 hover:text-white"
              aria-label={`Remove ${attachment.name}`}
              title="Remove attachment"
            >
              ×
            </button>
          </span>
        </div>
      ) : null}
      <div className="flex min-h-0 items-end gap-2">
        <button
          type="button"
          title={CHAT_ATTACH_TOOLTIP}
          aria-label={CHAT_ATTACH_TOOLTIP}
          disabled={sending}
          onClick={() => picker.current?.click()}
          className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg border border-gray-700 text-gray-300 hover:bg-gray-800 hover:text-white disabled:opacity-50"
        >
          <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
            <path d="M21 12.5l-8.5 8.5a5.5 5.5 0 0 1-7.8-7.8l9-9a3.7 3.7 0 0 1 5.2 5.2l-9 9a1.8 1.8 0 0 1-2.6-2.6l8.5-8.5" />
          </svg>
        </button>
        <input
          ref={picker}
          type="file"
          accept={CHAT_ATTACH_ACCEPT}
          className="hidden"
          data-testid="chat-file-input"
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) attach(file);
            // Picking the same file again after removing it must fire a change.
            event.target.value = '';
          }}
        />
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <textarea
          id="chat-input"
          ref={inputRef}
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
          disabled={sending || loading}
          maxLength={PROMPT_MAX_CHARS}
          rows={1}
          placeholder={CHAT_INPUT_PLACEHOLDER}
          className="min-w-0 flex-1 resize-none rounded-lg border border-gray-700 bg-gray-800 px-3 py-2 text-sm text-white placeholder:text-gray-500 focus:border-indigo-500 focus:outline-none disabled:opacity-70"
        />
        <button
          type="submit"
          disabled={sending || loading}
          aria-label="Send message"
          title="Send message"
          className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-indigo-600 text-white hover:bg-indigo-500 disabled:opacity-50"
        >
          <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
            <path d="M22 2 11 13M22 2l-7 20-4-9-9-4z" />
          </svg>
        </button>
      </div>
    </form>
  );
}
