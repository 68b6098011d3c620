// @vitest-environment jsdom
// The top bar's menu button is a disclosure: aria-expanded follows it, Escape closes it (focus
// back on the button) unless the Account menu inside handled that Escape, and a click outside
// closes it. 'Take Tour' without a plan says what the tour needs instead of doing nothing.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { RouterNavigation } from '../routerNavigation.tsx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOUR_NEEDS_PLAN, TopNav } from './TopNav.tsx';
import { withClient } from './testProviders.tsx';

const auth = vi.hoisted(() => ({ hasActiveSubscription: false }));

vi.mock('../auth/AuthProvider.tsx', () => ({
  useAuth: () => ({
    user: { id: 'user_1', email: 'trader@example.com', username: 'trader' },
    subscription: null,
    hasActiveSubscription: auth.hasActiveSubscription,
    refresh: async () => undefined,
  }),
}));
vi.mock('../auth/useSignOut.ts', () => ({ useSignOut: () => async () => undefined }));
vi.mock('../api/billing.ts', () => ({
  billingApi: { cancelSubscription: async () => undefined },
  usePlans: () => ({ data: [] }),
}));

afterEach(() => {
  cleanup();
  auth.hasActiveSubscription = false;
});

function renderNav(path = '/crypto-analytics-ai') {
  render(
    withClient(
      <MemoryRouter initialEntries={[path]}>
        <p>Page content</p>
        <Routes>
          <Route
            path="*"
            element={
              <RouterNavigation>
                <TopNav />
              </RouterNavigation>
            }
          />
        </Routes>
        <Routes>
          <Route path="/" element={<p>Landing page</p>} />
          <Route path="*" element={null} />
        </Routes>
      </MemoryRouter>,
    ),
  );
  return screen.getByRole('button', { name: 'Menu' });
}

describe('TopNav menu', () => {
  it('opens and closes as a disclosure, and Escape gives focus back to its button', () => {
    const button = renderNav();
    const menu = document.getElementById('main-menu')!;
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(button.getAttribute('aria-controls')).toBe('main-menu');
    expect(menu.className).toContain('hidden');

    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(menu.className).not.toMatch(/(^| )hidden( |$)/);

    screen.getByRole('button', { name: 'Take Tour' }).focus();
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(button);
  });

  it('closes on a click outside it, not on a click inside it', () => {
    const button = renderNav();
    fireEvent.click(button);
    fireEvent.pointerDown(screen.getByTestId('nav-user'));
    expect(button.getAttribute('aria-expanded')).toBe('true');
    fireEvent.pointerDown(screen.getByText('Page content'));
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  it('stays open when the Account menu inside it takes the Escape', () => {
    const button = renderNav();
    fireEvent.click(button);
    fireEvent.click(screen.getByText('Account'));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(screen.getByText('Account').closest('details')!.open).toBe(false);
    expect(button.getAttribute('aria-expanded')).toBe('true');
  });

  it("'Take Tour' without a plan says what the tour needs and goes to the plans", () => {
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      callback(0);
      return 0;
    });
    renderNav();
    act(() => screen.getByRole('button', { name: 'Take Tour' }).click());
    expect(screen.getByText(TOUR_NEEDS_PLAN)).toBeTruthy();
    expect(screen.getByText('Landing page')).toBeTruthy();
    vi.unstubAllGlobals();
  });
});
