// Which characters a trader's names and messages may hold (issue 33, item 4), through the very
// schemas the API and the browser's forms parse with.
import { describe, expect, it } from 'vitest';
import { ruleInput } from './alertRules.ts';
import { displayName, registerRequest, username } from './auth.ts';
import { escapeUnsafeCharacters, unsafeCharacter } from './userText.ts';

const rule = (extra: Record<string, unknown>) => ({
  symbol: 'AAPL',
  condition: { kind: 'price_cross', direction: 'above', level: 200 },
  ...extra,
});

function firstError(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) {
  const issue = result.error?.issues[0];
  return issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : null;
}

describe('unsafeCharacter', () => {
  it.each([
    ['CR', 'a\rb', 'U+000D'],
    ['LF', 'a\nb', 'U+000A'],
    ['NUL', 'a\u0000b', 'U+0000'],
    ['ESC (terminal escape sequences)', '\u001b[2Ka', 'U+001B'],
    ['DEL', 'a\u007f', 'U+007F'],
    ['NEL, a C1 line break', 'a\u0085b', 'U+0085'],
    ['CSI, a C1 control', 'a\u009bb', 'U+009B'],
    ['the line separator', 'a\u2028b', 'U+2028'],
    ['the paragraph separator', 'a\u2029b', 'U+2029'],
    ['a right-to-left override', 'invoice\u202Etxt.exe', 'U+202E'],
    ['a left-to-right embedding', '\u202Aa', 'U+202A'],
    ['a first-strong isolate', 'a\u2068b', 'U+2068'],
    ['a pop directional isolate', 'a\u2069', 'U+2069'],
    ['a lone surrogate', 'a\uD800b', 'U+D800'],
  ])('finds %s', (_name, text, found) => {
    expect(unsafeCharacter(text)).toBe(found);
  });

  it.each([
    ['plain text', 'Breakout on AAPL'],
    ['accents and CJK', 'Été 株価'],
    ['right-to-left text with a bidi mark', 'שלום\u200F 123'],
    ['an emoji sequence with zero-width joiners', '👨‍👩‍👧 alert'],
    ['a tab-free space run', 'a   b'],
  ])('allows %s', (_name, text) => {
    expect(unsafeCharacter(text)).toBeNull();
  });

  it('allows LF, and only LF, in a text of several lines', () => {
    expect(unsafeCharacter('one\ntwo', { lineFeeds: true })).toBeNull();
    expect(unsafeCharacter('one\r\ntwo', { lineFeeds: true })).toBe('U+000D');
    expect(unsafeCharacter('one\u2028two', { lineFeeds: true })).toBe('U+2028');
  });
});

describe('the schemas refuse them, naming the field', () => {
  it.each([
    [{ name: 'n\r\nBcc: evil@x.test' }, 'name: name may not contain control characters or line breaks (U+000D)'],
    [
      { name: 'n\u2028[outbox] http://evil.test' },
      'name: name may not contain control characters or line breaks (U+2028)',
    ],
    [{ name: 'Take\u202Etiforp' }, 'name: name may not contain control characters or line breaks (U+202E)'],
    [{ name: 'a\u0085b' }, 'name: name may not contain control characters or line breaks (U+0085)'],
    [
      { message: 'line one\r\nline two' },
      'message: message may not contain control characters other than line breaks (U+000D)',
    ],
    [
      { message: '{{ticker}}\u001b[2K at {{close}}' },
      'message: message may not contain control characters other than line breaks (U+001B)',
    ],
  ])('a rule with %o', (extra, message) => {
    expect(firstError(ruleInput.safeParse(rule(extra)))).toBe(message);
  });

  it("keeps a rule's message of several lines split by LF", () => {
    const parsed = ruleInput.parse(rule({ name: 'Breakout', message: '{{ticker}} broke out\nat {{close}}' }));
    expect(parsed).toMatchObject({ name: 'Breakout', message: '{{ticker}} broke out\nat {{close}}' });
  });

  it.each([
    ['u\r\nBcc: evil@x.test', 'Username may not contain control characters or line breaks (U+000D)'],
    ['u\u2028v', 'Username may not contain control characters or line breaks (U+2028)'],
    ['u\u0085v', 'Username may not contain control characters or line breaks (U+0085)'],
    ['evil\u202Egnp.exe', 'Username may not contain control characters or line breaks (U+202E)'],
  ])('a username %j', (text, message) => {
    expect(firstError(username.safeParse(text))).toBe(`: ${message}`);
    const registration = registerRequest.safeParse({
      email: 'a@example.com',
      password: 'secret-password',
      username: text,
    });
    expect(firstError(registration)).toBe(`username: ${message}`);
  });

  it('a display name with a line separator', () => {
    expect(firstError(displayName.safeParse('Joe\u2029Bcc: x'))).toBe(
      ': Name may not contain control characters or line breaks (U+2029)',
    );
    expect(displayName.parse('  Trader Joe ')).toBe('Trader Joe');
  });
});

describe('escapeUnsafeCharacters', () => {
  it('writes every refused character as an escape, so the text stays on one line', () => {
    const printed = escapeUnsafeCharacters('Alert: n\r\n[outbox] http://evil.test\u2028\u001b[2K\u202E');
    expect(printed).toBe('Alert: n\\u{D}\\u{A}[outbox] http://evil.test\\u{2028}\\u{1B}[2K\\u{202E}');
    expect(unsafeCharacter(printed)).toBeNull();
  });

  it('leaves ordinary text alone', () => {
    expect(escapeUnsafeCharacters('Alert: Été 👨‍👩‍👧 — AAPL')).toBe('Alert: Été 👨‍👩‍👧 — AAPL');
  });
});
