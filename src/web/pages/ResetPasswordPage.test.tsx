// @vitest-environment jsdom
// /reset-password asks a signed-in trader (no e-mailed token) for the current password and
// sends it; with a valid e-mailed token it asks only for the new password; a used or expired
// link says so, to a signed-in trader on the page and to anyone else on / (the state it passes).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider, useLocation } from 'react-router';
import { RouterNavigation } from '../routerNavigation.tsx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider } from '../auth/AuthProvider.tsx';
import { NotificationsProvider } from '../ui/Notifications.tsx';
import { ResetPasswordPage } from './ResetPasswordPage.tsx';

function Elsewhere() {
  const location = useLocation();
  return (
    <p>
      elsewhere {location.pathname} {JSON.stringify(location.state)}
    </p>
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A fake of the three server calls the page makes; records what the reset call sent. */
function stubServer({ signedIn, tokenValid }: { signedIn: boolean; tokenValid: boolean }) {
  const sent: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    // A fetch stub: fetch answers with a promise.

    vi.fn(async (input: string, init?: RequestInit) => {
      const json = (body: unknown) =>
        new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      if (input === '/api/me')
        return json({
          user: signedIn ? { id: 'u1', email: 't@example.com', username: 'trader' } : null,
          subscription: null,
        });
      if (input.startsWith('/api/account/reset-token')) return json({ valid: tokenValid });
      if (input === '/api/account/reset-password') {
        sent.push(JSON.parse(init?.body as string));
        return json({ success: true });
      }
      return new Response('{}', { status: 404 });
    }),
  );
  return sent;
}

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      {
        element: (
          <RouterNavigation>
            <Outlet />
          </RouterNavigation>
        ),
        children: [
          { path: '/reset-password', Component: ResetPasswordPage },
          { path: '*', Component: Elsewhere },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <AuthProvider>
        <NotificationsProvider>
          <RouterProvider router={router} />
        </NotificationsProvider>
      </AuthProvider>
    </QueryClientProvider>,
  );
}

function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label, { exact: true }), { target: { value } });
}

describe('ResetPasswordPage', () => {
  it('asks a signed-in trader for the current password and sends it', async () => {
    const sent = stubServer({ signedIn: true, tokenValid: false });
    renderAt('/reset-password');
    const current = await screen.findByLabelText('Current password');
    expect(current.getAttribute('type')).toBe('password');
    expect(current.getAttribute('autocomplete')).toBe('current-password');

    fill('New password', 'second-password');
    fill('Confirm new password', 'second-password');
    fireEvent.click(screen.getByRole('button', { name: 'Update password' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Please enter your current password');
    expect(sent).toEqual([]);

    fill('Current password', 'first-password');
    fireEvent.click(screen.getByRole('button', { name: 'Update password' }));
    expect((await screen.findByRole('status')).textContent).toBe('Password updated successfully!');
    expect(sent).toEqual([{ newPassword: 'second-password', currentPassword: 'first-password' }]);
  });

  it('with a valid e-mailed token asks only for the new password', async () => {
    const sent = stubServer({ signedIn: false, tokenValid: true });
    renderAt('/reset-password?token=mailed-token');
    await screen.findByLabelText('New password', { exact: true });
    expect(screen.queryByLabelText('Current password')).toBeNull();

    fill('New password', 'second-password');
    fill('Confirm new password', 'second-password');
    fireEvent.click(screen.getByRole('button', { name: 'Update password' }));
    expect((await screen.findByRole('status')).textContent).toBe('Password updated successfully!');
    expect(sent).toEqual([{ newPassword: 'second-password', token: 'mailed-token' }]);
  });

  it('a used or expired link sends a visitor to / saying why', async () => {
    stubServer({ signedIn: false, tokenValid: false });
    renderAt('/reset-password?token=used');
    expect((await screen.findByText(/^elsewhere/)).textContent).toBe('elsewhere / {"resetLinkInvalid":true}');
  });

  it("Better Auth's ?error=INVALID_TOKEN for a used link says why too", async () => {
    stubServer({ signedIn: false, tokenValid: false });
    renderAt('/reset-password?error=INVALID_TOKEN');
    expect((await screen.findByText(/^elsewhere/)).textContent).toBe('elsewhere / {"resetLinkInvalid":true}');
  });

  it('a used or expired link tells a signed-in trader, with a link to request a new one', async () => {
    stubServer({ signedIn: true, tokenValid: false });
    renderAt('/reset-password?token=used');
    expect((await screen.findByRole('alert')).textContent).toContain('expired or was already used');
    expect(screen.getByRole('link', { name: 'Request a new link' }).getAttribute('href')).toBe('/forgot-password');
    expect(screen.getByLabelText('Current password', { exact: true })).toBeTruthy();
  });
});
