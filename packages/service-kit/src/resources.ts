/// <reference lib="esnext.disposable" />

/**
 * What a service (or a test's play) opened, each registered the moment it is opened and closed in one place,
 * in reverse order of opening (an AsyncDisposableStack): a server closes (draining its in-flight work) before
 * the pools and stores that work uses. The same close runs when a start fails part-way, so a failed start
 * leaves nothing open. Each failure is kept with the name of what failed to close, and closing goes on.
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
  /**
   * `await using resources = createResources()`: closes at the end of the block, however it ends, and throws
   * the failures as one error (closeFailure); a failure while an error is already on its way is kept beside it.
   */
  [Symbol.asyncDispose](): Promise<void>;
}

export interface ResourceFailure {
  readonly name: string;
  readonly error: unknown;
}

/** Told as each resource starts and ends closing (a service logs them at debug level). */
export interface ResourceHooks {
  readonly closing?: (name: string) => void;
  readonly closed?: (name: string) => void;
}

export function createResources(hooks: ResourceHooks = {}): Resources {
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
        hooks.closing?.(name);
        try {
          await close(resource);
          hooks.closed?.(name);
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
    async [Symbol.asyncDispose]() {
      const failure = closeFailure(await this.close());
      if (failure) throw failure;
    },
  };
}

/** The failures of a close as one error naming what failed to close, or undefined when all closed. */
export function closeFailure(failures: readonly ResourceFailure[]): AggregateError | undefined {
  if (failures.length === 0) return undefined;
  return new AggregateError(
    failures.map((f) => f.error),
    `closing failed: ${failures.map((f) => f.name).join(', ')}`,
  );
}
