// docs/SPEC.md chat panel: 'Loading...' at start-up, a red error banner when an error is set,
// message bubbles with different avatars and colours for the trader and the assistant, three
// pulsing dots while the answer is on its way, assistant Markdown rendered safely, and a WATOS
// grid under every assistant message that mentions WATOS, a trading signal or opportunity
// signals. Beyond docs/SPEC.md: saved conversations (switch, start a new one, delete).
import { Panel } from '../../ui/Panel.tsx';
import { useEffect, useRef } from 'react';
import { mentionsWatos } from '../../../shared/chatSignals.ts';
import { useAssistant } from './AssistantProvider.tsx';
import { gridSymbolOf, gridTimeframeOf, WELCOME_ID, type DisplayMessage } from './chatRules.ts';
import { Markdown } from './Markdown.tsx';
import { WatosGrid } from './WatosGrid.tsx';

function UserAvatar() {
  return (
    <span
      className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-indigo-500 text-white"
      data-testid="user-avatar"
      aria-hidden
    >
      <svg viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
        <circle cx="12" cy="8" r="4" />
        <path d="M4 21a8 8 0 0 1 16 0" />
      </svg>
    </span>
  );
}

function AssistantAvatar() {
  return (
    <span
      className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-white"
      data-testid="assistant-avatar"
      aria-hidden
    >
      <svg viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
        <path d="M3 17l5-5 4 4 8-8" />
        <path d="M14 8h6v6" />
      </svg>
    </span>
  );
}

function TypingDots({ activity }: { activity?: string }) {
  return (
    <span
      className="flex items-center gap-1 py-1"
      role="status"
      aria-label={activity ?? 'Assistant is typing'}
      data-testid="typing-dots"
    >
      {[0, 200, 400].map((delay) => (
        <span
          key={delay}
          className="h-2 w-2 animate-pulse rounded-full bg-gray-300"
          style={{ animationDelay: `${delay}ms` }}
        />
      ))}
      {activity ? <span className="ml-2 text-xs text-gray-400">{activity}</span> : null}
    </span>
  );
}

/** Whether an assistant message gets a WATOS grid below it (docs/SPEC.md's rule). */
const hasGrid = (message: DisplayMessage) =>
  message.role !== 'user' && !message.streaming && mentionsWatos(message.content);

function Bubble({ message, firstGrid }: { message: DisplayMessage; firstGrid: boolean }) {
  const mine = message.role === 'user';
  const showGrid = hasGrid(message);
  return (
    <li
      className={`flex gap-2 ${mine ? 'flex-row-reverse' : ''}`}
      data-testid={mine ? 'user-message' : 'assistant-message'}
      data-message-id={message.id}
    >
      {mine ? <UserAvatar /> : <AssistantAvatar />}
      <div className={`min-w-0 ${mine ? 'max-w-[85%]' : 'max-w-[92%] flex-1'}`}>
        <div
          className={
            mine
              ? `whitespace-pre-wrap rounded-2xl rounded-tr-sm px-3 py-2 text-sm text-white [overflow-wrap:anywhere] ${message.failed ? 'bg-indigo-900/60 ring-1 ring-red-500' : 'bg-indigo-600'}`
              : 'rounded-2xl rounded-tl-sm bg-gray-800 px-3 py-2'
          }
        >
          {mine ? (
            message.content
          ) : message.streaming && message.content === '' ? (
            <TypingDots activity={message.activity} />
          ) : (
            <Markdown text={message.content} />
          )}
        </div>
        {message.failed ? <p className="mt-1 text-right text-xs text-red-400">Not sent</p> : null}
        {showGrid ? (
          <WatosGrid
            symbol={gridSymbolOf(message.content)}
            timeframe={gridTimeframeOf(message.content)}
            collapsed={!firstGrid}
          />
        ) : null}
      </div>
    </li>
  );
}

function ConversationControls() {
  const { conversations, conversationId, openConversation, newConversation, deleteConversation, sending } =
    useAssistant();
  const button =
    'rounded border border-gray-700 px-2 py-1 text-xs text-gray-300 hover:bg-gray-800 hover:text-white disabled:opacity-50';
  return (
    <div className="flex min-w-0 items-center gap-1.5">
      <label className="sr-only" htmlFor="saved-conversations">
        Saved conversations
      </label>
      <select
        id="saved-conversations"
        className="min-w-0 max-w-[12rem] rounded border border-gray-700 bg-gray-800 px-1.5 py-1 text-xs text-gray-200"
        value={conversationId ?? ''}
        disabled={sending}
        onChange={(event) => (event.target.value ? void openConversation(event.target.value) : newConversation())}
      >
        <option value="">{conversationId ? 'Saved conversations' : 'New conversation'}</option>
        {conversations.map((conversation) => (
          <option key={conversation.id} value={conversation.id}>
            {conversation.title}
          </option>
        ))}
      </select>
      <button type="button" className={button} onClick={newConversation} disabled={sending}>
        New chat
      </button>
      <button
        type="button"
        className={button}
        onClick={() => void deleteConversation()}
        disabled={sending || !conversationId}
        aria-label="Delete this conversation"
        title="Delete this conversation"
      >
        <svg viewBox="0 0 24 24" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
          <path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3" />
        </svg>
      </button>
    </div>
  );
}

export function ChatPanel() {
  const { loading, messages, error } = useAssistant();
  const list = useRef<HTMLDivElement | null>(null);
  const last = messages.at(-1);
  // The welcome's grid and the conversation's first answer with a grid open; later grids start
  // folded to their title, so a long conversation is not a column of 450 px grids.
  const firstGridMessage = messages.find((message) => message.id !== WELCOME_ID && hasGrid(message));

  // Follow the conversation as it grows (and as an answer streams in), inside the panel only.
  useEffect(() => {
    const element = list.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [messages.length, last?.content]);

  return (
    <Panel
      headingId="chat-heading"
      title="AI Assistant"
      className="flex h-[500px] min-h-0 flex-col"
      headerClassName="flex flex-wrap items-center justify-between gap-2"
      titleClassName="whitespace-nowrap"
      header={loading ? null : <ConversationControls />}
      data-tour="chat"
    >
      {error ? (
        <div
          role="alert"
          className="mt-2 rounded border border-red-700 bg-red-900/60 px-3 py-2 text-sm text-red-100"
          data-testid="chat-error"
        >
          {error}
        </div>
      ) : null}
      <div ref={list} className="mt-2 min-h-0 flex-1 overflow-y-auto pr-1" data-testid="chat-messages">
        {loading ? (
          <p className="text-sm text-gray-400">Loading...</p>
        ) : (
          <ul className="space-y-3" aria-label="Chat messages">
            {messages.map((message) => (
              <Bubble
                key={message.id}
                message={message}
                firstGrid={message === firstGridMessage || message.id === WELCOME_ID}
              />
            ))}
          </ul>
        )}
      </div>
    </Panel>
  );
}
