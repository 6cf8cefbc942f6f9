/// <reference lib="esnext.disposable" />

/**
 * What the ALS opened (the oracle store, the upstream pools, Redis, the key watcher, timers, the servers),
 * each registered the moment it is opened and closed in one place, in reverse order of opening (an
 * AsyncDisposableStack, as the position handler's resources.ts): a server closes (draining its in-flight
 * work) before the pools and stores that work uses. The same close runs when the start fails part-way, so a
 * failed start leaves nothing open. Each failure is kept with the name of what failed to close, and closing
 * goes on.
 */
export interface Resources {
  /** Registers how to close what was just opened; returns it. */
  own<T>(name: string, resource: T, close: (resource: T) => unknown): T;
  /**
   * Closes everything registered, last opened first, each awaited before the next; resolves to the failures.
   * Once: later calls get the same promise.
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
  const stack = new AsyncDisposableStack();
  const open: string[] = [];
  const failures: ResourceFailure[] = [];
  let closing: Promise<readonly ResourceFailure[]> | undefined;
  return {
    own(name, resource, close) {
      if (closing) throw new Error(`${name} opened after the resources were closed`);
      open.push(name);
      stack.defer(async () => {
        open.pop();
        try {
          await close(resource);
        } catch (error) {
          failures.push({ name, error });
        }
      });
      return resource;
    },
    close() {
      closing ??= stack.disposeAsync().then(() => failures);
      return closing;
    },
    get open() {
      return [...open];
    },
  };
}
