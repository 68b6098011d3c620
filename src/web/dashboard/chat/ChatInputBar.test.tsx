// @vitest-environment jsdom
// The chat's message box is compact: one row when empty, growing with its text up to six rows,
// then scrolling.
import { describe, expect, it } from 'vitest';
import { CHAT_INPUT_MAX_ROWS, fitToText } from './ChatInputBar.tsx';

function box(scrollHeight: number) {
  const element = document.createElement('textarea');
  element.style.lineHeight = '20px';
  element.style.padding = '8px 12px';
  element.style.border = '1px solid';
  Object.defineProperty(element, 'scrollHeight', { value: scrollHeight });
  document.body.append(element);
  return element;
}

describe('fitToText', () => {
  it('is one row tall for a short text', () => {
    const element = box(36);
    fitToText(element);
    expect(element.style.height).toBe('38px');
    expect(element.style.overflowY).toBe('hidden');
  });

  it('grows with the text', () => {
    const element = box(3 * 20 + 16);
    fitToText(element);
    expect(element.style.height).toBe('78px');
  });

  it(`stops at ${CHAT_INPUT_MAX_ROWS} rows and scrolls beyond`, () => {
    const element = box(40 * 20 + 16);
    fitToText(element);
    expect(element.style.height).toBe(`${CHAT_INPUT_MAX_ROWS * 20 + 16 + 2}px`);
    expect(element.style.overflowY).toBe('auto');
  });
});
