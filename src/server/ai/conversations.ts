// Saved assistant conversations, per user (tables `conversations` and `chat_messages`): the
// chat restores the latest one on reload, lists older ones, starts new ones. Every read and
// write is scoped to the owner, so one trader can never see another's conversation.
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq } from 'drizzle-orm';
import type { ChatRole, ConversationDetail, ConversationSummary, SavedMessage } from '../../shared/schemas/chat.ts';
import type { Database } from '../db/client.ts';
import { chatMessages, conversations } from '../db/schema.ts';

const TITLE_LENGTH = 60;

/** A conversation's title: its first question, without the attached file's name, shortened. */
export function titleOf(text: string): string {
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

export async function findConversation(db: Database, userId: string, id: string): Promise<ConversationSummary | null> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)));
  return row ? summary(row) : null;
}

export async function loadConversation(db: Database, userId: string, id: string): Promise<ConversationDetail | null> {
  const found = await findConversation(db, userId, id);
  if (!found) return null;
  const rows = await db
    .select()
    .from(chatMessages)
    .where(eq(chatMessages.conversationId, id))
    .orderBy(asc(chatMessages.id));
  const messages: SavedMessage[] = rows.map((row) => ({
    id: row.id,
    role: row.role as ChatRole,
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
  const [row] = await db.insert(conversations).values({ id: randomUUID(), userId, title }).returning();
  return summary(row);
}

export async function deleteConversation(db: Database, userId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning({ id: conversations.id });
  return deleted.length > 0;
}

export async function appendMessage(
  db: Database,
  conversationId: string,
  message: { role: ChatRole; content: string; attachmentName?: string | null },
): Promise<number> {
  const [row] = await db
    .insert(chatMessages)
    .values({
      conversationId,
      role: message.role,
      content: message.content,
      attachmentName: message.attachmentName ?? null,
    })
    .returning({ id: chatMessages.id });
  await db.update(conversations).set({ updatedAt: new Date() }).where(eq(conversations.id, conversationId));
  return row.id;
}

export async function deleteMessage(db: Database, id: number): Promise<void> {
  await db.delete(chatMessages).where(eq(chatMessages.id, id));
}

/** A new conversation gets the title of its first question. */
export async function retitleIfNew(db: Database, conversationId: string, firstQuestion: string): Promise<void> {
  await db
    .update(conversations)
    .set({ title: titleOf(firstQuestion) })
    .where(and(eq(conversations.id, conversationId), eq(conversations.title, 'New conversation')));
}
