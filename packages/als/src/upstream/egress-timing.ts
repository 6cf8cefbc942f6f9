import { performance } from 'node:perf_hooks';
import type { Cached, Directory, Egress, Participant, SettlingSend } from '../discovery/types.js';
import type { EgressStep } from '../observe/original-metrics.js';

/** Where the timings go: the original's egress histograms (observe/metrics.ts egress). */
export type EgressTimer = (
  step: EgressStep,
  endpointType: string,
  participant: string,
  ok: boolean,
  seconds: number,
) => void;

/** Seconds since `startedAt`, a performance.now(). */
const since = (startedAt: number) => (performance.now() - startedAt) / 1000;

/** What the directory is built on: central-ledger's client (upstream/central-ledger.ts). */
export interface ParticipantSource {
  participant(name: string): Cached<Participant | undefined>;
  endpoints(name: string): Cached<ReadonlyMap<string, string>>;
}

/**
 * The directory port with the original's timers around each call (src/models/participantEndpoint/facade.js):
 * egress_validateParticipant around a participant check (success: central-ledger knows it), and
 * egress_getParticipantEndpoint around an endpoint look-up (success: the participant has one of that type).
 * Timed here, at the edge, not with an undici interceptor: most of these calls are answered by the caches
 * without reaching undici, and the original's timers include its cached reads too. An answer the caches
 * held is timed 0 s without reading the clock (two reads per call, for sub-microsecond durations); a
 * waited one from when its promise came back to its end.
 */
export function timedDirectory(source: ParticipantSource, timer: EgressTimer): Directory {
  // A held answer is timed and passed on as it is: no promise when the caches answered (Cached).
  const checked = (found: Participant | undefined, seconds: number) => {
    timer('validateParticipant', '', '', found !== undefined, seconds);
    return found;
  };
  const resolved = (all: ReadonlyMap<string, string>, name: string, type: string, seconds: number) => {
    const template = all.get(type);
    timer('getParticipantEndpoint', type, name, template !== undefined, seconds);
    return template;
  };
  return {
    participant(name) {
      const found = source.participant(name);
      if (!(found instanceof Promise)) return checked(found, 0);
      const started = performance.now();
      return found.then(
        (answer) => checked(answer, since(started)),
        (error: unknown) => {
          timer('validateParticipant', '', '', false, since(started));
          throw error;
        },
      );
    },
    endpoint(name, type) {
      const all = source.endpoints(name);
      if (!(all instanceof Promise)) return resolved(all, name, type, 0);
      const started = performance.now();
      return all.then(
        (answer) => resolved(answer, name, type, since(started)),
        (error: unknown) => {
          timer('getParticipantEndpoint', type, name, false, since(started));
          throw error;
        },
      );
    },
    endpoints: (name) => source.endpoints(name),
  };
}

/**
 * The egress port with the original's egress_sendRequestToParticipant timer around each request that names
 * its participant and endpoint type (every request of the flows), success when the peer answered 2xx. It
 * wraps the whole send (signing, failure reporting), as the original's timer wraps its sendRequest. The
 * end is told by the send itself as its exchange completes (SettlingSend): a `.then` here was a promise
 * and a reaction per send.
 */
export function timedEgress(send: SettlingSend, timer: EgressTimer): Egress {
  return {
    send(request) {
      const { participant, endpointType } = request;
      if (participant === undefined || endpointType === undefined) return send(request);
      const started = performance.now();
      const settled = (ok: boolean) => timer('sendRequestToParticipant', endpointType, participant, ok, since(started));
      try {
        return send(request, settled);
      } catch (error) {
        settled(false);
        return Promise.reject(error);
      }
    },
  };
}
