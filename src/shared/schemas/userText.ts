// Which characters a trader's own text may hold where it is shown, mailed or logged (a rule's
// name and message, a username or display name), the zod check that refuses the others with
// the field's name, and the escaping the server applies when it prints stored text anyway.
// Shared so the browser's forms give the same errors as the API.
import type { z } from 'zod';

/**
 * Control characters (C0, DEL, C1 including NEL), line and paragraph separators, lone
 * surrogates, and the bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
 * A CR or LF in a name can forge a log line or a mail header; an override can make a name read
 * backwards. The bidi marks (U+200E, U+200F, U+061C) and the zero-width joiners stay allowed:
 * right-to-left names and emoji sequences need them, and they cannot reorder or break a line.
 */
const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

function codePointName(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first character of `text` a user's text may not hold, as `U+000D`, or null. */
export function unsafeCharacter(text: string, options: { lineFeeds?: boolean } = {}): string | null {
  for (const char of text) {
    if (options.lineFeeds && char === '\n') continue;
    if (UNSAFE.test(char)) return codePointName(char);
  }
  return null;
}

/**
 * A zod check for a one-line text (`lineFeeds: false`) or a text of several lines split by
 * LF only (`lineFeeds: true`: CR, lone or in CRLF, is refused like any other control).
 */
export function refuseUnsafeCharacters(field: string, options: { lineFeeds?: boolean } = {}) {
  return (value: string, context: z.RefinementCtx): void => {
    const found = unsafeCharacter(value, options);
    if (found === null) return;
    context.addIssue({
      code: 'custom',
      message: options.lineFeeds
        ? `${field} may not contain control characters other than line breaks (${found})`
        : `${field} may not contain control characters or line breaks (${found})`,
    });
  };
}

/**
 * The text with every character unsafeCharacter refuses written as `\u{D}`: for printing a
 * stored value (one stored before these checks, or from another path) on one line of a log.
 */
export function escapeUnsafeCharacters(text: string): string {
  return text.replace(UNSAFE_ALL, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
