// Every sign-out, session revocation, password change and account deletion that succeeded in
// this process. Better Auth's cookie cache carries `generation` as its version (auth.ts), so a
// cached session made before a change is read from the database again (where a revoked one is
// gone); listeners (the open alert streams, the subscription cache) re-check too.
export interface SessionChanges {
  readonly generation: string;
  changed(): void;
  /** Returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export function createSessionChanges(): SessionChanges {
  let generation = 0;
  const listeners = new Set<() => void>();
  return {
    get generation() {
      return String(generation);
    },
    changed() {
      generation++;
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // A listener's failure must not fail the auth answer that made the change.
        }
      }
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
