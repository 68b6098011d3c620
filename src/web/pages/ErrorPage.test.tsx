// @vitest-environment jsdom
// A render error anywhere in the route tree shows docs/SPEC.md's 'Unexpected Application Error!'.
import { cleanup, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorPage } from './ErrorPage.tsx';

function Broken(): never {
  throw new Error('chart data was malformed');
}

afterEach(cleanup);

describe('ErrorPage', () => {
  it('replaces a crashed page with the error text and a way home', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const router = createMemoryRouter([{ path: '/', Component: Broken, errorElement: <ErrorPage /> }]);
    render(<RouterProvider router={router} />);
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeTruthy();
    expect(screen.getByText('chart data was malformed')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Home' }).getAttribute('href')).toBe('/');
    quiet.mockRestore();
  });
});
