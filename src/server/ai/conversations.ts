// Saved assistant conversations, per user (tables `conversations` and `chat_messages`): the
// chat restores the latest one on reload, lists older ones, starts new ones. Every read and
// write is scoped to the owner, so one trader can never see another's conversation. The only
// module that touches those two tables; a conversation that is missing, or someone else's, is
// a NotFound domain error ('Conversation not found').
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
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
import { onlyRow, rowsOf } from '../db/rows.ts';

const TITLE_LENGTH = 60;
const NOT_FOUND = 'Conversation not found';
/** The title of a conversation started before its first question (POST /api/conversations). */
const NEW_TITLE = 'New conversation';

/** A conversation's title: its first question, without the attached file's name, shortened. */
function titleOf(text: string): string {
  const plain = text
    .replace(/\s*\[[^\]]*\]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain === '') return NEW_TITLE;
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
  title = NEW_TITLE,
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
 * Saves the question of a new exchange, in one statement: in the given conversation (the
 * form's conversation_id: the trader's own, retitled by this question if still new and
 * touched as the latest; NotFound otherwise) or in a new one titled by the question. Answers
 * the conversation and the saved message's id.
 */
export async function saveQuestion(
  db: Database,
  userId: string,
  rawId: string | undefined,
  message: { content: string; attachmentName?: string | null },
): Promise<{ conversation: { id: string; created: boolean }; messageId: number }> {
  const title = titleOf(message.content);
  const columns = sql`(conversation_id, role, content, attachment_name)`;
  const values = sql`'user', ${message.content}, ${message.attachmentName ?? null}`;
  if (rawId) {
    const parsed = conversationIdField.safeParse(rawId);
    if (!parsed.success)
      throw invalid(parsed.error.issues.map((issue) => issue.message).join('; ') || 'conversation_id is invalid');
    const id = parsed.data;
    const result = await db.execute(sql`
      with conversation as (
        update ${conversations}
        set title = case when title = ${NEW_TITLE} then ${title} else title end, updated_at = ${new Date()}
        where id = ${id} and user_id = ${userId}
        returning id
      )
      insert into ${chatMessages} ${columns}
      select id, ${values} from conversation
      returning id`);
    const [row] = rowsOf<{ id: string | number }>(result);
    if (!row) throw notFound(NOT_FOUND);
    return { conversation: { id, created: false }, messageId: Number(row.id) };
  }
  const id = randomUUID();
  const row = onlyRow(
    rowsOf<{ id: string | number }>(
      await db.execute(sql`
      with conversation as (
        insert into ${conversations} (id, user_id, title) values (${id}, ${userId}, ${title})
        returning id
      )
      insert into ${chatMessages} ${columns}
      select id, ${values} from conversation
      returning id`),
    ),
  );
  return { conversation: { id, created: true }, messageId: Number(row.id) };
}

/** Saves a message in the conversation and touches it as the latest, in one statement. */
export async function appendMessage(
  db: Database,
  conversationId: string,
  message: { role: ChatRole; content: string },
): Promise<number> {
  const row = onlyRow(
    rowsOf<{ id: string | number }>(
      await db.execute(sql`
      with conversation as (
        update ${conversations} set updated_at = ${new Date()} where id = ${conversationId} returning id
      )
      insert into ${chatMessages} (conversation_id, role, content)
      select id, ${message.role}, ${message.content} from conversation
      returning id`),
    ),
  );
  return Number(row.id);
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
