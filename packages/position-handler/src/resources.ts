/// <reference lib="esnext.disposable" />
import type { Logger } from './observe/logger.js';

/**
 * What the handler opened (database pool, profiler, HTTP server, Kafka clients), closed in one place in the
 * reverse order of opening: on a failed start the part opened so far, on stop all of it. Every close runs even
 * when one before it failed; the failures are thrown together afterwards (AsyncDisposableStack's
 * SuppressedError). Each close is logged at debug level with its resource's name.
 */
export class Resources {
  readonly #stack = new AsyncDisposableStack();
  readonly #logger: Logger;
  #closed: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** `value` was just opened: `close` releases it after everything opened later. Returns `value`. */
  own<T>(name: string, value: T, close: (value: T) => Promise<unknown>): T {
    this.#stack.defer(async () => {
      this.#logger.debug('closing', { resource: name });
      await close(value);
      this.#logger.debug('closed', { resource: name });
    });
    return value;
  }

  /** Closes everything once (later calls get the same promise). */
  close(): Promise<void> {
    this.#closed ??= this.#stack.disposeAsync();
    return this.#closed;
  }
}
