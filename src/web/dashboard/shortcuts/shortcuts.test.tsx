// @vitest-environment jsdom
// The dashboard's keyboard shortcuts (issue 17, item 7): `/` focuses the input that announces
// it (aria-keyshortcuts="/") and is not typed into it, `?` opens the "Keyboard shortcuts"
// dialog, and neither is taken from someone typing in a field, with Ctrl/Alt/Meta held or while
// a modal has the page. The dialog is a modal: named, focus moved in and kept in, Escape, the
// close button or a click beside it closes it and focus goes back; the Account menu's entry
// opens it through OPEN_SHORTCUTS_EVENT.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DashboardShortcuts } from './ShortcutsDialog.tsx';
import { OPEN_SHORTCUTS_EVENT } from './openShortcutsEvent.ts';
import { focusSymbolSearch, SHORTCUT_GROUPS } from './shortcuts.ts';

afterEach(cleanup);

function Page({ onSearch = () => void focusSymbolSearch() }: { onSearch?: () => void }) {
  return (
    <div>
      <button type="button">Somewhere</button>
      <input aria-label="Add symbol" aria-keyshortcuts="/" />
      <input aria-label="Other field" />
      <textarea aria-label="Message" />
      <select aria-label="Timeframe">
        <option>1h</option>
      </select>
      <div contentEditable="true" suppressContentEditableWarning data-testid="editable">
        notes
      </div>
      <DashboardShortcuts onSearch={onSearch} />
    </div>
  );
}

/** Presses a key where focus is; true when the page took it (preventDefault). */
function press(key: string, init: KeyboardEventInit = {}): boolean {
  const target = document.activeElement ?? document.body;
  return !fireEvent.keyDown(target, { key, ...init });
}

describe('the page-wide keys', () => {
  it('`/` focuses the symbol search and is not typed into it', () => {
    render(<Page />);
    screen.getByRole('button', { name: 'Somewhere' }).focus();
    expect(press('/')).toBe(true);
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Add symbol' }));
  });

  it('`?` opens the shortcuts dialog', () => {
    render(<Page />);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(press('?', { shiftKey: true })).toBe(true);
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });

  it('leaves both keys to inputs, text areas, selects and editable content', () => {
    const onSearch = vi.fn();
    render(<Page onSearch={onSearch} />);
    const fields = [
      screen.getByRole('textbox', { name: 'Other field' }),
      screen.getByRole('textbox', { name: 'Message' }),
      screen.getByRole('combobox', { name: 'Timeframe' }),
      screen.getByTestId('editable'),
    ];
    for (const field of fields) {
      field.focus();
      expect(press('/'), field.tagName).toBe(false);
      expect(press('?', { shiftKey: true }), field.tagName).toBe(false);
    }
    expect(onSearch).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('ignores the keys with Ctrl, Alt or Meta held, and other keys', () => {
    const onSearch = vi.fn();
    render(<Page onSearch={onSearch} />);
    expect(press('/', { ctrlKey: true })).toBe(false);
    expect(press('/', { metaKey: true })).toBe(false);
    expect(press('?', { altKey: true, shiftKey: true })).toBe(false);
    expect(press('s')).toBe(false);
    expect(onSearch).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('leaves the page alone while a modal (a form, the tour) has it', () => {
    const onSearch = vi.fn();
    render(
      <>
        <Page onSearch={onSearch} />
        <div role="dialog" aria-modal="true" aria-label="New alert rule" />
      </>,
    );
    expect(press('/')).toBe(false);
    expect(press('?', { shiftKey: true })).toBe(false);
    expect(onSearch).not.toHaveBeenCalled();
    expect(screen.getAllByRole('dialog')).toHaveLength(1);
  });

  it('says when there is no symbol search to focus', () => {
    render(<input aria-label="Plain" />);
    expect(focusSymbolSearch()).toBe(false);
    cleanup();
    render(<input aria-label="Search" aria-keyshortcuts="/" />);
    expect(focusSymbolSearch()).toBe(true);
  });
});

describe('the Keyboard shortcuts dialog', () => {
  function openFrom(opener: HTMLElement) {
    opener.focus();
    press('?', { shiftKey: true });
    return screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
  }

  it('is a labelled modal that lists every shortcut', () => {
    render(<Page />);
    const dialog = openFrom(screen.getByRole('button', { name: 'Somewhere' }));
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    for (const group of SHORTCUT_GROUPS) {
      expect(within(dialog).getByRole('heading', { name: group.title })).toBeTruthy();
      for (const shortcut of group.shortcuts) expect(within(dialog).getAllByText(shortcut.action).length).toBe(1);
    }
    const terms = within(dialog)
      .getAllByRole('term')
      .map((term) => term.querySelector('.sr-only')?.textContent);
    expect(terms).toEqual(expect.arrayContaining(['Slash', 'Question mark', 'Escape', 'Up or Down arrow']));
  });

  it('takes focus, keeps Tab inside, and gives focus back on Escape', () => {
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Somewhere' });
    const dialog = openFrom(opener);
    const close = within(dialog).getByRole('button', { name: 'Close keyboard shortcuts' });
    expect(document.activeElement).toBe(close);
    // The close button is the one control: Tab and Shift+Tab stay on it.
    expect(press('Tab')).toBe(true);
    expect(document.activeElement).toBe(close);
    expect(press('Tab', { shiftKey: true })).toBe(true);
    expect(document.activeElement).toBe(close);
    // A click on the dialog's text leaves focus in the dialog, where Tab finds its way back.
    dialog.focus();
    expect(press('Tab')).toBe(true);
    expect(document.activeElement).toBe(close);

    expect(press('Escape')).toBe(true);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('closes with its close button and a click beside it, not a click inside it', () => {
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Somewhere' });
    fireEvent.click(within(openFrom(opener)).getByRole('button', { name: 'Close keyboard shortcuts' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);

    const dialog = openFrom(opener);
    fireEvent.click(within(dialog).getByText('Watchlist table'));
    expect(screen.getByRole('dialog')).toBe(dialog);
    fireEvent.click(dialog.parentElement!);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('keeps its presses and its Escape from the page behind it (an open top-bar menu stays open)', () => {
    const onPagePointer = vi.fn();
    const onPageEscape = vi.fn((event: KeyboardEvent) => event.defaultPrevented);
    document.addEventListener('pointerdown', onPagePointer);
    document.addEventListener('keydown', onPageEscape);
    try {
      render(<Page />);
      const dialog = openFrom(screen.getByRole('button', { name: 'Somewhere' }));
      fireEvent.pointerDown(dialog.parentElement!);
      expect(onPagePointer).not.toHaveBeenCalled();
      press('Escape');
      expect(onPageEscape).toHaveLastReturnedWith(true);
    } finally {
      document.removeEventListener('pointerdown', onPagePointer);
      document.removeEventListener('keydown', onPageEscape);
    }
  });

  it('opens on the window event of the Account menu entry', () => {
    render(<Page />);
    act(() => {
      window.dispatchEvent(new Event(OPEN_SHORTCUTS_EVENT));
    });
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });
});
