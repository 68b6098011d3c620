// The dashboard's AI section (docs/SPEC.md: 700px): the chat (500px) on the left half, the Prompt
// Catalog on the right half, and the input bar below both. Below the md breakpoint they stack
// with the input bar right under the chat. Needs an <AssistantProvider> above it. The chat
// hands the catalogue its prompt call and the attachment (prompts/ imports nothing of chat/).
import { PromptCatalog } from '../prompts/PromptCatalog.tsx';
import { useAssistant } from './AssistantProvider.tsx';
import { ChatInputBar } from './ChatInputBar.tsx';
import { ChatPanel } from './ChatPanel.tsx';

function ChatPromptCatalog({ className }: { className: string }) {
  const { runPrompt, attachment } = useAssistant();
  return <PromptCatalog className={className} runPrompt={runPrompt} attachment={attachment} />;
}

export function AiSection() {
  return (
    <div className="grid gap-4 md:h-[700px] md:grid-cols-2 md:grid-rows-[500px_minmax(0,1fr)]" data-tour="ai-section">
      <ChatPanel />
      <ChatPromptCatalog className="order-3 h-auto md:order-none md:h-[500px]" />
      <ChatInputBar className="order-2 md:order-none md:col-span-2" />
    </div>
  );
}
