// Saved assistant conversations, per user (tables `conversations` and `chat_messages`): the
// chat restores the latest one on reload, lists older ones, starts new ones. Every read and
// write is scoped to the owner, so one trader can never see another's conversation. The only
// module that touches those two tables; a conversation that is missing, or someone else's, is
// a NotFound domain error ('Conversation not found').
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq } from 'drizzle-orm';
import {
  conversationIdField,
  type ChatRole,
  type ConversationDetail,
  type ConversationSummary,
  type SavedMessage,
} from '../../shared/schemas/chat.ts';
import type { Database } from '../db/client.ts';
import { invalid, notFound } from '../errors/domain.ts';
import { chatMessages, conversations } from '../db/schema.ts';
import { onlyRow } from '../db/rows.ts';

const TITLE_LENGTH = 60;
const NOT_FOUND = 'Conversation not found';

/** A conversation's title: its first question, without the attached file's name, shortened. */
function titleOf(text: string): string {
  const plain = text
    .replace(/\s*\[[^\]]*\]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain === '') return 'New conversation';
  return plain.length > TITLE_LENGTH ? `${plain.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : plain;
}

function summary(row: typeof conversations.$inferSelect): ConversationSummary {
  return {
    id: row.id,
    title: row.title,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listConversations(db: Database, userId: string, limit = 50): Promise<ConversationSummary[]> {
  const rows = await db
    .select()
    .from(conversations)
    .where(eq(conversations.userId, userId))
    .orderBy(desc(conversations.updatedAt))
    .limit(limit);
  return rows.map(summary);
}

async function findConversation(db: Database, userId: string, id: string): Promise<ConversationSummary | null> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)));
  return row ? summary(row) : null;
}

/** The trader's conversation with its messages (NotFound when missing or someone else's). */
export async function loadConversation(db: Database, userId: string, id: string): Promise<ConversationDetail> {
  const found = await findConversation(db, userId, id);
  if (!found) throw notFound(NOT_FOUND);
  const rows = await db
    .select()
    .from(chatMessages)
    .where(eq(chatMessages.conversationId, id))
    .orderBy(asc(chatMessages.id));
  const messages: SavedMessage[] = rows.map((row) => ({
    id: row.id,
    role: row.role,
    content: row.content,
    attachment_name: row.attachmentName,
    created_at: row.createdAt.toISOString(),
  }));
  return { ...found, messages };
}

export async function createConversation(
  db: Database,
  userId: string,
  title = 'New conversation',
): Promise<ConversationSummary> {
  const row = onlyRow(await db.insert(conversations).values({ id: randomUUID(), userId, title }).returning());
  return summary(row);
}

/** Deletes the trader's conversation and its messages (NotFound when missing or someone else's). */
export async function deleteConversation(db: Database, userId: string, id: string): Promise<void> {
  if (!(await removeConversation(db, userId, id))) throw notFound(NOT_FOUND);
}

async function removeConversation(db: Database, userId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning({ id: conversations.id });
  return deleted.length > 0;
}

/**
 * The conversation a new exchange is saved in: the given one (the form's conversation_id, the
 * trader's own, retitled by its first question if still new; NotFound otherwise) or a new one
 * titled by the question.
 */
export async function conversationFor(
  db: Database,
  userId: string,
  rawId: string | undefined,
  firstQuestion: string,
): Promise<{ id: string; created: boolean }> {
  if (rawId) {
    const parsed = conversationIdField.safeParse(rawId);
    if (!parsed.success)
      throw invalid(parsed.error.issues.map((issue) => issue.message).join('; ') || 'conversation_id is invalid');
    const id = parsed.data;
    if (!(await findConversation(db, userId, id))) throw notFound(NOT_FOUND);
    await retitleIfNew(db, id, firstQuestion);
    return { id, created: false };
  }
  const created = await createConversation(db, userId, titleOf(firstQuestion));
  return { id: created.id, created: true };
}

export async function appendMessage(
  db: Database,
  conversationId: string,
  message: { role: ChatRole; content: string; attachmentName?: string | null },
): Promise<number> {
  const row = onlyRow(
    await db
      .insert(chatMessages)
      .values({
        conversationId,
        role: message.role,
        content: message.content,
        attachmentName: message.attachmentName ?? null,
      })
      .returning({ id: chatMessages.id }),
  );
  await db.update(conversations).set({ updatedAt: new Date() }).where(eq(conversations.id, conversationId));
  return row.id;
}

/**
 * Undoes a failed exchange: drops the saved user message, and the conversation too when the
 * exchange created it (the trader keeps the text in the input box and sends it again).
 */
export async function discardExchange(
  db: Database,
  exchange: { userId: string; conversation: { id: string; created: boolean }; userMessageId: number },
): Promise<void> {
  await db.delete(chatMessages).where(eq(chatMessages.id, exchange.userMessageId));
  if (exchange.conversation.created) await removeConversation(db, exchange.userId, exchange.conversation.id);
}

/** A new conversation gets the title of its first question. */
async function retitleIfNew(db: Database, conversationId: string, firstQuestion: string): Promise<void> {
  await db
    .update(conversations)
    .set({ title: titleOf(firstQuestion) })
    .where(and(eq(conversations.id, conversationId), eq(conversations.title, 'New conversation')));
}
