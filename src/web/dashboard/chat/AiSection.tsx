// The dashboard's AI section: the chat (docs/SPEC.md: 500px) on the left, the Prompt Catalog on
// the right, and the input bar below both. On a wide screen (lg) the chat takes two thirds, so
// tables in answers do not wrap; the catalogue is as tall as its form (at most the chat's
// height) and the input bar as tall as its text (1 to 6 rows), so the section no longer pads
// out to 700px with empty space. Below the md breakpoint they stack with the input bar right
// under the chat. Needs an <AssistantProvider> above it. The chat
// hands the catalogue its prompt call and the attachment (prompts/ imports nothing of chat/).
// Below them, across the section, the Track record panel (issue 20; its view loads when opened).
import { PromptCatalog } from '../prompts/index.ts';
import { TrackRecordSection } from '../trackRecord/index.ts';
import { useAssistant } from './AssistantProvider.tsx';
import { ChatInputBar } from './ChatInputBar.tsx';
import { ChatPanel } from './ChatPanel.tsx';

function ChatPromptCatalog({ className }: { className: string }) {
  const { runPrompt, attachment } = useAssistant();
  return <PromptCatalog className={className} runPrompt={runPrompt} attachment={attachment} />;
}

export function AiSection() {
  return (
    <div
      className="grid gap-4 md:grid-cols-2 md:grid-rows-[500px_auto] lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]"
      data-tour="ai-section"
    >
      <ChatPanel />
      <ChatPromptCatalog className="order-3 h-auto md:order-none md:max-h-[500px] md:self-start" />
      <ChatInputBar className="order-2 md:order-none md:col-span-2" />
      <TrackRecordSection className="order-4 md:order-none md:col-span-2" />
    </div>
  );
}
