// @vitest-environment jsdom
// /success validates the subscription the payment started; when the browser's validation
// fails it shows docs/SPEC.md's 'Failed to validate subscription' (or the server's reason)
// and stays on the page instead of moving on to the dashboard.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import { RouterNavigation } from '../routerNavigation.tsx';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider } from '../auth/AuthProvider.tsx';
import { NotificationsProvider } from '../ui/Notifications.tsx';
import { SuccessPage } from './SuccessPage.tsx';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function stubServer(validate: () => Response) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string) => {
      calls.push(input);
      const json = (body: unknown) =>
        new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      if (input === '/api/me')
        return json({
          user: { id: 'u1', email: 't@example.com', username: 'trader' },
          subscription: {
            id: 'sub_1',
            status: 'active',
            current_period_end: '2099-01-01T00:00:00.000Z',
            price_id: 'price_3day',
            cancel_at_period_end: false,
          },
        });
      if (input.startsWith('/api/subscriptions/validate/')) return validate();
      if (input.startsWith('/api/plans')) return json({ plans: [] });
      return new Response('{}', { status: 404 });
    }),
  );
  return calls;
}

function renderSuccess() {
  const router = createMemoryRouter(
    [
      {
        element: (
          <RouterNavigation>
            <Outlet />
          </RouterNavigation>
        ),
        children: [
          { path: '/success', Component: SuccessPage },
          { path: '*', Component: () => <p>elsewhere</p> },
        ],
      },
    ],
    { initialEntries: ['/success'] },
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

describe('SuccessPage', () => {
  it("says 'Failed to validate subscription' when the validation fails without a reason", async () => {
    const calls = stubServer(() => new Response('oops', { status: 502 }));
    renderSuccess();
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to validate subscription');
    expect(calls).toContain('/api/subscriptions/validate/sub_1');
  });

  it("shows the server's reason when it gives one", async () => {
    stubServer(
      () =>
        new Response(JSON.stringify({ success: false, error: 'Subscription not found' }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        }),
    );
    renderSuccess();
    expect((await screen.findByRole('alert')).textContent).toBe('Subscription not found');
  });
});
