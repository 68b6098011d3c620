// @vitest-environment jsdom
// A render error anywhere in the route tree shows docs/SPEC.md's 'Unexpected Application Error!';
// a page whose code does not arrive within the chunk load timeout shows an error with a retry.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_LOAD_TIMEOUT_MS } from '../../shared/constants.ts';
import { CHUNK_FAILED_MESSAGE, CHUNK_TIMEOUT_MESSAGE, ChunkLoadError, loadWithin } from '../chunkLoad.ts';
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

describe('a page whose code does not load', () => {
  it(`fails after docs/SPEC.md's ${CHUNK_LOAD_TIMEOUT_MS / 1000} s and offers a retry`, async () => {
    vi.useFakeTimers();
    const outcome = loadWithin(() => new Promise<never>(() => undefined)).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(CHUNK_LOAD_TIMEOUT_MS - 1);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    vi.useRealTimers();
    expect(error).toBeInstanceOf(ChunkLoadError);
    expect((error as Error).message).toBe(CHUNK_TIMEOUT_MESSAGE);

    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    const router = createMemoryRouter([
      {
        path: '/',
        lazy: () => loadWithin(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module'))),
        HydrateFallback: () => null,
        errorElement: <ErrorPage />,
      },
    ]);
    render(<RouterProvider router={router} />);
    expect((await screen.findByRole('alert')).textContent).toBe(CHUNK_FAILED_MESSAGE);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(reload).toHaveBeenCalled();
    vi.unstubAllGlobals();
    quiet.mockRestore();
  });
});
