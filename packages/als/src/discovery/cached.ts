import type { Cached } from './types.js';

/**
 * `next` applied to a Cached value: at once when the caches held it, after the read when it is a promise.
 * The flows' checks on a held participant so stay free of promises (Cached says why).
 */
export function whenRead<T, R>(value: Cached<T>, next: (value: T) => R): Cached<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
