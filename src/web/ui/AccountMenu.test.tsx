// @vitest-environment jsdom
// The Account menu closes like any menu: on Escape (focus back on its button) and on a click
// outside it; a click inside it leaves it open. It leads to the change-password form and, on
// the dashboard, to the Keyboard shortcuts dialog. It asks for the plans (the plan's name) only
// once it is pointed at, focused or opened, not with the page, and writes the renewal day then too.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { RouterNavigation } from '../routerNavigation.tsx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OPEN_SHORTCUTS_EVENT } from '../dashboard/shortcuts/openShortcutsEvent.ts';
import { AccountMenu } from './AccountMenu.tsx';
import { withClient } from './testProviders.tsx';

vi.mock('../auth/AuthProvider.tsx', () => ({
  useAuth: () => ({
    user: { id: 'user_1', email: 'trader@example.com', username: 'trader' },
    subscription: {
      id: 'sub_1',
      price_id: 'price_monthly',
      current_period_end: '2030-01-01T00:00:00.000Z',
      cancel_at_period_end: false,
    },
    hasActiveSubscription: true,
    refresh: async () => undefined,
  }),
}));

/** Each render's `enabled` of usePlans: the plans are fetched only once it is true. */
const plansEnabled = vi.hoisted(() => [] as boolean[]);
vi.mock('../api/billing.ts', () => ({
  billingApi: { cancelSubscription: async () => undefined },
  usePlans: (enabled = true) => {
    plansEnabled.push(enabled);
    return { data: enabled ? [{ priceId: 'price_monthly', name: 'Monthly', interval: 'month' }] : undefined };
  },
}));

afterEach(cleanup);

function renderMenu(path = '/') {
  render(
    withClient(
      <MemoryRouter initialEntries={[path]}>
        <RouterNavigation>
          <div>
            <p>Elsewhere on the page</p>
            <AccountMenu />
          </div>
        </RouterNavigation>
      </MemoryRouter>,
    ),
  );
}

function openMenu(path = '/') {
  renderMenu(path);
  const button = screen.getByText('Account');
  fireEvent.click(button);
  const details = button.closest('details')!;
  expect(details.open).toBe(true);
  return { button, details };
}

describe('AccountMenu', () => {
  it('closes on Escape and gives focus back to its button', () => {
    const { button, details } = openMenu();
    screen.getByRole('button', { name: 'Cancel renewal' }).focus();
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(details.open).toBe(false);
    expect(document.activeElement).toBe(button);
  });

  it('marks the Escape it handled, so an enclosing menu stays open', () => {
    openMenu();
    const event = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    document.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
  });

  it('has a change-password entry leading to the change-password form', () => {
    openMenu();
    expect(screen.getByRole('link', { name: 'Change password' }).getAttribute('href')).toBe('/reset-password');
  });

  it('closes on a click outside it, not on a click inside it', () => {
    const { details } = openMenu();
    fireEvent.pointerDown(screen.getByText('Monthly'));
    expect(details.open).toBe(true);
    fireEvent.pointerDown(screen.getByText('Elsewhere on the page'));
    expect(details.open).toBe(false);
  });

  it('opens the Keyboard shortcuts dialog on the dashboard, closing itself with focus on its button', () => {
    const opened = vi.fn();
    window.addEventListener(OPEN_SHORTCUTS_EVENT, opened);
    try {
      const { button, details } = openMenu('/dashboard');
      const entry = screen.getByRole('button', { name: 'Keyboard shortcuts' });
      expect(entry.getAttribute('aria-keyshortcuts')).toBe('?');
      fireEvent.click(entry);
      expect(details.open).toBe(false);
      expect(document.activeElement).toBe(button);
      expect(opened).toHaveBeenCalledTimes(1);
    } finally {
      window.removeEventListener(OPEN_SHORTCUTS_EVENT, opened);
    }
  });

  it('offers the shortcuts only where they work, on the dashboard', () => {
    openMenu('/');
    expect(screen.queryByRole('button', { name: 'Keyboard shortcuts' })).toBeNull();
  });

  it('asks for the plans and writes the renewal day only once it is pointed at or focused', () => {
    plansEnabled.length = 0;
    renderMenu();
    expect(plansEnabled).not.toContain(true);
    expect(screen.queryByText(/^Renews /)).toBeNull();
    fireEvent.pointerEnter(screen.getByText('Account'));
    expect(plansEnabled.at(-1)).toBe(true);
    expect(screen.getByText('Monthly')).toBeTruthy();
    // The period's end, in the browser's own format, is written with it, not with the page.
    expect(screen.getByText(`Renews ${new Date('2030-01-01T00:00:00.000Z').toLocaleString()}`)).toBeTruthy();

    cleanup();
    plansEnabled.length = 0;
    renderMenu();
    fireEvent.focus(screen.getByText('Account'));
    expect(plansEnabled.at(-1)).toBe(true);
  });
});
