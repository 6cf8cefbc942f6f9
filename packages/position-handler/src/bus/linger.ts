import type { OutboundMessage } from './types.js';

type Send = (messages: readonly OutboundMessage[]) => Promise<void>;
interface Lingering {
  readonly messages: OutboundMessage[];
  readonly waiters: { resolve(): void; reject(error: unknown): void }[];
}

/**
 * KAFKA_PRODUCE_LINGER_MS: the produce calls made within `lingerMs` of the first one go out as one send (the
 * partitions of one process each produce a chunk's notifications; with a linger they share requests), and
 * each caller's promise settles with that send. 0 sends every call at once. The same meaning as the Java
 * client's linger.ms, which central-ledger's operators set through its rdkafka config.
 */
export function withLinger(send: Send, lingerMs: number): Send {
  if (lingerMs <= 0) return send;
  let pending: Lingering | undefined;
  return (messages) =>
    new Promise<void>((resolve, reject) => {
      if (!pending) {
        const batch: Lingering = { messages: [], waiters: [] };
        pending = batch;
        setTimeout(() => {
          if (pending === batch) pending = undefined;
          send(batch.messages).then(
            () => {
              for (const waiter of batch.waiters) waiter.resolve();
            },
            (error: unknown) => {
              for (const waiter of batch.waiters) waiter.reject(error);
            },
          );
        }, lingerMs);
      }
      pending.messages.push(...messages);
      pending.waiters.push({ resolve, reject });
    });
}
