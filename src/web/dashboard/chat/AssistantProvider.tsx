// The assistant's state for the whole dashboard: the chat messages (restored from the latest
// saved conversation, or the welcome message), the input box and its attachment, sending with
// the streamed answer, saved conversations, and the Prompt Catalog's call. It also provides
// ChatAttachmentContext, so My Stuff's 'Analyze with AI' can attach a file to the input bar.
// The input box's text has its own context (useChatInput): typing re-renders the input bar
// only, not every panel that reads the assistant's state.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
  type RefObject,
} from 'react';
import type { ChatMessage, ConversationDetail, ConversationSummary } from '../../../shared/schemas/chat.ts';
import { CHAT_SEND_ERROR_LOG, NO_RESPONSE_CONTENT } from '../../../shared/schemas/chatTexts.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { ChatAttachmentContext } from './chatAttachment.ts';
import {
  ChatSendError,
  fetchConversation,
  fetchConversations,
  removeConversation,
  sendChat,
  sendPrompt,
} from './chatApi.ts';
import {
  historyForRequest,
  nextMessageId,
  toolActivity,
  welcomeMessage,
  withAttachmentName,
  type DisplayMessage,
} from './chatRules.ts';

export interface AssistantState {
  /** docs/SPEC.md: 'Loading...' until the initial or welcome messages are set. */
  loading: boolean;
  messages: DisplayMessage[];
  /** The red banner's text. */
  error: string | null;
  sending: boolean;
  attachment: File | null;
  attach: (file: File) => void;
  removeAttachment: () => void;
  send: () => Promise<void>;
  conversationId: string | null;
  conversations: ConversationSummary[];
  newConversation: () => void;
  openConversation: (id: string) => Promise<void>;
  deleteConversation: () => Promise<void>;
  /** The Prompt Catalog's call; appends the prompt and its answer to the chat. Throws on failure. */
  runPrompt: (prompt: string) => Promise<void>;
  inputRef: RefObject<HTMLTextAreaElement | null>;
}

/** The input box's text: kept until the answer has arrived, cleared after a successful send. */
export interface ChatInputState {
  input: string;
  setInput: (text: string) => void;
}

const AssistantContext = createContext<AssistantState | null>(null);
const ChatInputContext = createContext<ChatInputState | null>(null);

export function useAssistant(): AssistantState {
  const state = useContext(AssistantContext);
  if (!state) throw new Error('useAssistant must be used inside <AssistantProvider>');
  return state;
}

export function useChatInput(): ChatInputState {
  const state = useContext(ChatInputContext);
  if (!state) throw new Error('useChatInput must be used inside <AssistantProvider>');
  return state;
}

function restored(conversation: ConversationDetail): DisplayMessage[] {
  return [
    welcomeMessage(),
    ...conversation.messages.map((message) => ({
      id: nextMessageId(Date.parse(message.created_at)),
      role: message.role,
      content: message.content,
    })),
  ];
}

function reasonOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message.replace(/\.$/, '') : 'the request failed';
}

export function AssistantProvider({
  children,
  initialMessages,
}: {
  children: ReactNode;
  initialMessages?: ChatMessage[];
}) {
  const queryClient = useQueryClient();
  // docs/SPEC.md: supplied initial messages are used instead of the welcome (and of a saved conversation).
  const [loading, setLoading] = useState(!initialMessages);
  const [messages, setMessages] = useState<DisplayMessage[]>(() => initialMessages ?? []);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [input, setInputText] = useState('');
  // The text as last typed, for send (which must not change identity on every keystroke).
  const inputText = useRef('');
  const setInput = useCallback((text: string) => {
    inputText.current = text;
    setInputText(text);
  }, []);
  const [attachment, setAttachment] = useState<File | null>(null);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const inputRef = useRef<HTMLTextAreaElement | null>(null);
  const inFlight = useRef<AbortController | null>(null);
  // The latest messages for callbacks that run after an await.
  const messagesRef = useRef<DisplayMessage[]>([]);
  useEffect(() => {
    messagesRef.current = messages;
  }, [messages]);

  const conversations = useQuery({
    queryKey: queryKeys.conversations.all,
    queryFn: fetchConversations,
    enabled: !loading && !initialMessages,
    // The load below has just read the list: no second request when this query starts.
    staleTime: 30_000,
  });

  useEffect(() => {
    if (initialMessages) return;
    let cancelled = false;
    void (async () => {
      try {
        const list = await queryClient.fetchQuery({
          queryKey: queryKeys.conversations.all,
          queryFn: fetchConversations,
        });
        const latest = list[0] ? await fetchConversation(list[0].id) : null;
        if (cancelled) return;
        setConversationId(latest?.id ?? null);
        setMessages(latest ? restored(latest) : [welcomeMessage()]);
      } catch (failure) {
        if (cancelled) return;
        console.error('Error loading the saved conversation', failure);
        setError(`Your saved conversation could not be loaded: ${reasonOf(failure)}.`);
        setMessages([welcomeMessage()]);
      } finally {
        if (!cancelled) setLoading(false);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [initialMessages, queryClient]);

  useEffect(() => () => inFlight.current?.abort(), []);

  const attach = useCallback((file: File) => {
    setAttachment(file);
    // From My Stuff the input bar may be off screen: bring it into view.
    inputRef.current?.scrollIntoView({ behavior: 'smooth', block: 'center' });
    inputRef.current?.focus({ preventScroll: true });
  }, []);

  const send = useCallback(async () => {
    const text = inputText.current.trim();
    if (!text || sending) return;
    const file = attachment;
    const question: DisplayMessage = {
      id: nextMessageId(),
      role: 'user',
      content: withAttachmentName(text, file?.name),
    };
    const replyId = nextMessageId();
    const earlier = messagesRef.current.filter((message) => !message.failed);
    setMessages([...earlier, question, { id: replyId, role: 'assistant', content: '', streaming: true }]);
    setSending(true);
    setError(null);
    const controller = new AbortController();
    inFlight.current = controller;
    try {
      const stream = await sendChat({
        messages: historyForRequest([...earlier, question]),
        conversationId,
        file,
        signal: controller.signal,
      });
      let failure: string | null = null;
      let finished = false;
      for await (const chunk of stream.chunks) {
        if (chunk.type === 'text-delta') {
          setMessages((current) =>
            current.map((message) =>
              message.id === replyId ? { ...message, content: message.content + chunk.delta } : message,
            ),
          );
        } else if (chunk.type === 'tool-input-available') {
          const activity = toolActivity(chunk.toolName);
          setMessages((current) =>
            current.map((message) => (message.id === replyId ? { ...message, activity } : message)),
          );
        } else if (chunk.type === 'error') {
          failure = chunk.errorText;
        } else if (chunk.type === 'abort') {
          failure = 'The answer was interrupted';
        } else if (chunk.type === 'finish') {
          finished = true;
        }
      }
      if (failure || !finished) throw new ChatSendError(failure ?? 'The answer stopped before it was complete');
      setMessages((current) =>
        current.map((message) => (message.id === replyId ? { ...message, streaming: false } : message)),
      );
      // The server saved the exchange in this conversation (a new one for a first message).
      if (stream.conversationId) setConversationId(stream.conversationId);
      setInput('');
      setAttachment(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.conversations.all });
    } catch (failure) {
      if (controller.signal.aborted) return;
      console.error(CHAT_SEND_ERROR_LOG, failure);
      setMessages((current) =>
        current
          .filter((message) => message.id !== replyId)
          .map((message) => (message.id === question.id ? { ...message, failed: true } : message)),
      );
      setError(`Your message was not sent: ${reasonOf(failure)}. It is still in the box below; try again.`);
    } finally {
      if (inFlight.current === controller) inFlight.current = null;
      setSending(false);
    }
  }, [attachment, conversationId, queryClient, sending, setInput]);

  const newConversation = useCallback(() => {
    inFlight.current?.abort();
    setConversationId(null);
    setMessages([welcomeMessage()]);
    setError(null);
  }, []);

  const openConversation = useCallback(async (id: string) => {
    inFlight.current?.abort();
    try {
      const conversation = await fetchConversation(id);
      setConversationId(conversation.id);
      setMessages(restored(conversation));
      setError(null);
    } catch (failure) {
      console.error('Error loading a saved conversation', failure);
      setError(`That conversation could not be loaded: ${reasonOf(failure)}.`);
    }
  }, []);

  const deleteConversation = useCallback(async () => {
    if (!conversationId) {
      newConversation();
      return;
    }
    try {
      await removeConversation(conversationId);
      newConversation();
      await queryClient.invalidateQueries({ queryKey: queryKeys.conversations.all });
    } catch (failure) {
      console.error('Error deleting a conversation', failure);
      setError(`The conversation could not be deleted: ${reasonOf(failure)}.`);
    }
  }, [conversationId, newConversation, queryClient]);

  const runPrompt = useCallback(
    async (prompt: string) => {
      const file = attachment;
      const result = await sendPrompt({ prompt, conversationId, file });
      setMessages((current) => [
        ...current.filter((message) => !message.failed),
        { id: nextMessageId(), role: 'user', content: withAttachmentName(prompt, file?.name) },
        { id: nextMessageId(), role: 'assistant', content: result.response || NO_RESPONSE_CONTENT },
      ]);
      if (result.conversation_id) setConversationId(result.conversation_id);
      setAttachment(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.conversations.all });
    },
    [attachment, conversationId, queryClient],
  );

  const state = useMemo<AssistantState>(
    () => ({
      loading,
      messages,
      error,
      sending,
      attachment,
      attach,
      removeAttachment: () => setAttachment(null),
      send,
      conversationId,
      conversations: conversations.data ?? [],
      newConversation,
      openConversation,
      deleteConversation,
      runPrompt,
      inputRef,
    }),
    [
      loading,
      messages,
      error,
      sending,
      attachment,
      attach,
      send,
      conversationId,
      conversations.data,
      newConversation,
      openConversation,
      deleteConversation,
      runPrompt,
    ],
  );

  const inputState = useMemo<ChatInputState>(() => ({ input, setInput }), [input, setInput]);

  return (
    <AssistantContext.Provider value={state}>
      <ChatInputContext.Provider value={inputState}>
        <ChatAttachmentContext.Provider value={attach}>{children}</ChatAttachmentContext.Provider>
      </ChatInputContext.Provider>
    </AssistantContext.Provider>
  );
}
