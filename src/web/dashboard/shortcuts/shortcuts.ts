// The dashboard's keyboard shortcuts (issue 17, item 7): the list the "Keyboard shortcuts"
// dialog shows (one place, so the dialog and the keys cannot drift apart), and which key press
// is a page-wide shortcut. A page-wide key is never taken from someone typing: not inside an
// input, a text area, a select or editable content, not with Ctrl, Alt or Meta held, and not
// while a modal (a form, this dialog, the tour's tooltip) has the page.

export type Shortcut = { keys: readonly string[]; label: string; action: string };

/** Keys as the dialog writes them; `label` is how a screen reader hears the combination. */
export const SHORTCUT_GROUPS: ReadonlyArray<{ title: string; shortcuts: readonly Shortcut[] }> = [
  {
    title: 'Anywhere on the dashboard',
    shortcuts: [
      { keys: ['/'], label: 'Slash', action: 'Search symbols: focus the chart’s symbol search' },
      { keys: ['?'], label: 'Question mark', action: 'Show these keyboard shortcuts' },
      { keys: ['Esc'], label: 'Escape', action: 'Close a dialog, menu, tooltip or the own chart' },
    ],
  },
  {
    title: 'Watchlist table',
    shortcuts: [
      { keys: ['↑', '↓'], label: 'Up or Down arrow', action: 'Previous or next row' },
      { keys: ['Home', 'End'], label: 'Home or End', action: 'First or last row' },
      { keys: ['Enter'], label: 'Enter', action: 'Open the row’s chart' },
    ],
  },
  {
    title: 'Symbol search',
    shortcuts: [
      { keys: ['↑', '↓'], label: 'Up or Down arrow', action: 'Move through the suggestions' },
      { keys: ['Enter'], label: 'Enter', action: 'Pick the suggestion, or add what you typed' },
      { keys: ['Esc'], label: 'Escape', action: 'Close the suggestions' },
    ],
  },
  {
    title: 'Dashboard tabs (narrow screens)',
    shortcuts: [
      { keys: ['←', '→'], label: 'Left or Right arrow', action: 'Previous or next tab' },
      { keys: ['Home', 'End'], label: 'Home or End', action: 'First or last tab' },
    ],
  },
];

export type PageShortcut = 'search' | 'help';

/** Whether keys pressed in `element` are someone's typing. */
function isTypingTarget(element: EventTarget | null): boolean {
  if (!(element instanceof Element)) return false;
  if (element instanceof HTMLElement && element.isContentEditable) return true;
  return (
    element.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="textbox"]') !==
    null
  );
}

/** Whether a modal has the page (the shortcuts dialog itself, a form, the tour's tooltip). */
function modalIsOpen(doc: Document = document): boolean {
  return doc.querySelector('[aria-modal="true"]') !== null;
}

/** The page-wide shortcut a key press means, or null when it is not one (or not ours to take). */
export function pageShortcut(event: KeyboardEvent): PageShortcut | null {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return null;
  // `key` is what the layout typed, so Shift+/ on a US keyboard and Shift+ß on a German one are both '?'.
  const shortcut = event.key === '/' ? 'search' : event.key === '?' ? 'help' : null;
  if (!shortcut) return null;
  if (isTypingTarget(event.target) || isTypingTarget(document.activeElement)) return null;
  if (modalIsOpen()) return null;
  return shortcut;
}

/**
 * Focuses the chart's symbol search: the input that announces the `/` shortcut
 * (aria-keyshortcuts="/"). The chart area shows one at a time (the chart watchlist's above
 * TradingView, the own chart's above Exchange Data). Says whether there was one.
 */
export function focusSymbolSearch(root: ParentNode = document): boolean {
  const input = root.querySelector<HTMLInputElement>('input[aria-keyshortcuts="/"]');
  input?.focus();
  return input !== null && document.activeElement === input;
}
