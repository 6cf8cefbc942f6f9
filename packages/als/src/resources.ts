/**
 * What the ALS opened (the oracle store, the upstream pools, Redis, the key watcher, timers, the servers),
 * each registered the moment it is opened and closed in one place, in reverse order of opening: a server
 * closes (draining its in-flight work) before the pools and stores that work uses. The same close runs
 * when the start fails half-way, so a failed start leaves nothing open.
 *
 * Not AsyncDisposableStack: Node 24 has it, but the repository's TypeScript lib (ES2024) does not declare
 * it; and each failure here is reported with the name of what failed to close, and closing goes on.
 */
export interface Resources {
  /** Registers how to close what was just opened; returns it. */
  own<T>(name: string, resource: T, close: (resource: T) => unknown): T;
  /**
   * Closes everything registered, last opened first, each awaited before the next. A failure is reported and
   * closing goes on; the promise resolves to the failures. Once: later calls get the same promise.
   */
  close(): Promise<readonly ResourceFailure[]>;
  /** What is registered and not yet closed, in opening order (for tests and logs). */
  readonly open: readonly string[];
}

export interface ResourceFailure {
  readonly name: string;
  readonly error: unknown;
}

export function createResources(): Resources {
  const owned: { name: string; close: () => unknown }[] = [];
  let closing: Promise<readonly ResourceFailure[]> | undefined;
  return {
    own(name, resource, close) {
      if (closing) throw new Error(`${name} opened after the resources were closed`);
      owned.push({ name, close: () => close(resource) });
      return resource;
    },
    close() {
      closing ??= (async () => {
        const failures: ResourceFailure[] = [];
        for (let next = owned.pop(); next !== undefined; next = owned.pop()) {
          try {
            await next.close();
          } catch (error) {
            failures.push({ name: next.name, error });
          }
        }
        return failures;
      })();
      return closing;
    },
    get open() {
      return owned.map((o) => o.name);
    },
  };
}
