/**
 * How a flow ended, what its caller needs to know: whether a lookup still waits for a payee's callback,
 * the success label of the original's domain histogram, and whether the request had its one callback.
 * What happened on the way (a failed forward before the error callback, each proxy of a fan-out) is
 * counted by FlowObserver.event, not here.
 */
export type FlowOutcome =
  /** Its message went on: a lookup forwarded, a callback passed on, the Hub's answer delivered. */
  | { readonly kind: 'sent' }
  /** The Hub's own error callback to the requester; one that could not be delivered has nobody else to tell. */
  | { readonly kind: 'error_callback'; readonly delivered: boolean }
  /** The Hub's answer to a batch could not be delivered: nobody else to tell. */
  | { readonly kind: 'answer_undelivered' }
  /** Nothing was to be sent. */
  | { readonly kind: 'dropped'; readonly reason: DropReason };

/**
 * Why a callback was not passed on: its source is unknown (nobody can be told); a proxy's error while
 * other proxies may still find the party; a proxy's success after another's (the lookup has its answer).
 */
export type DropReason = 'unknown_source' | 'proxy_error_dropped' | 'proxy_success_dropped';

export type Dropped = Extract<FlowOutcome, { kind: 'dropped' }>;

// One object per outcome, shared: a flow allocates nothing to say how it ended.
export const SENT: FlowOutcome = Object.freeze({ kind: 'sent' });
export const ERROR_CALLBACK_SENT: FlowOutcome = Object.freeze({ kind: 'error_callback', delivered: true });
export const ERROR_CALLBACK_FAILED: FlowOutcome = Object.freeze({ kind: 'error_callback', delivered: false });
export const ANSWER_UNDELIVERED: FlowOutcome = Object.freeze({ kind: 'answer_undelivered' });
export const DROPPED: { readonly [R in DropReason]: Dropped } = Object.freeze({
  unknown_source: Object.freeze({ kind: 'dropped', reason: 'unknown_source' }),
  proxy_error_dropped: Object.freeze({ kind: 'dropped', reason: 'proxy_error_dropped' }),
  proxy_success_dropped: Object.freeze({ kind: 'dropped', reason: 'proxy_success_dropped' }),
});

/** Counts why a callback was not passed on, and answers that outcome. */
export function drop(ports: { readonly observe: { event(event: DropReason): void } }, reason: DropReason): Dropped {
  ports.observe.event(reason);
  return DROPPED[reason];
}

/** The request failed, as the original's domain histogram labels it (success false). */
export const failed = (outcome: FlowOutcome): boolean =>
  outcome.kind === 'error_callback' || outcome.kind === 'answer_undelivered';
