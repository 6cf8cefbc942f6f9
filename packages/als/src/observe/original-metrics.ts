import {
  childrenByPair,
  collectOriginalProcessMetrics,
  FastHistogram,
  type HistogramChild,
  ORIGINAL_HISTOGRAM_BUCKETS,
  type OriginalMetricsOptions,
  originalMetricsDefaults,
  withDefaultLabels,
} from '@mojafast/service-kit';
import type { Registry } from 'prom-client';

/**
 * The metric names the community dashboards query for the ALS (mojaloop/helm
 * monitoring/dashboards/mojaloop/dashboard-account-lookup-service.json and dashboard-NodeJSApplication.json),
 * as the original exports them: central-services-metrics histograms named `<prefix><id>` with the prefix of
 * the original's config/default.json (INSTRUMENTATION.METRICS.config.prefix "moja_als_"), its default
 * buckets, a `success` label, and its default label `serviceName` "account-lookup-service", which the
 * dashboards filter on. Our own `als_*` metrics stay as they are beside these. A deployment's prefix and
 * default labels come from the config (ALS_METRICS_PREFIX, ALS_METRICS_DEFAULT_LABELS, or the original's
 * INSTRUMENTATION.METRICS.config keys).
 */
export const ORIGINAL_PREFIX = 'moja_als_';
export const ORIGINAL_SERVICE_NAME = 'account-lookup-service';

export type { OriginalMetricsOptions };

/**
 * The original's egress timers (src/models/participantEndpoint/facade.js): checking a participant with
 * central-ledger, resolving one of its endpoints of a type, and sending it a request.
 */
export type EgressStep = 'validateParticipant' | 'getParticipantEndpoint' | 'sendRequestToParticipant';

export const ORIGINAL_METRICS_DEFAULTS = originalMetricsDefaults(ORIGINAL_PREFIX, ORIGINAL_SERVICE_NAME);

/**
 * Our route label → the original's ingress histogram ids (src/api/**: `ing_<operationId>`), for the path
 * without and with {SubId}. The spellings are the original's (`postParticipantsbyTypeAndID`,
 * `getParticipantsByTypeIdAndSubID`); the dashboards query them so.
 */
const INGRESS: Readonly<Record<string, readonly [string, string]>> = {
  parties_get: ['getPartiesByTypeAndID', 'getPartiesByTypeIDAndSubID'],
  parties_put: ['putPartiesByTypeAndID', 'putPartiesByTypeIDAndSubID'],
  parties_put_error: ['putPartiesErrorByTypeAndID', 'putPartiesErrorByTypeIDAndSubID'],
  participants_get: ['getParticipantsByTypeAndID', 'getParticipantsByTypeIdAndSubID'],
  participants_post: ['postParticipantsbyTypeAndID', 'postParticipantsByTypeIDAndSubID'],
  participants_put: ['putParticipantsByTypeAndID', 'putParticipantsByTypeIDAndSubID'],
  participants_delete: ['deleteParticipantsByTypeAndID', 'deleteParticipantsByTypeIDAndSubID'],
  participants_put_error: ['putParticipantsErrorByTypeAndID', 'putParticipantsErrorByTypeIDAndSubID'],
  participants_batch: ['postParticipantsBatch', 'postParticipantsBatch'],
};

/**
 * Our route label → the original's domain histogram (src/domain/parties/*.js, src/domain/participants/
 * participants.js), one per flow whatever the path.
 */
const DOMAIN: Readonly<Record<string, string>> = {
  parties_get: 'getPartiesByTypeAndID',
  parties_put: 'putPartiesByTypeAndID',
  parties_put_error: 'putPartiesErrorByTypeAndID',
  participants_get: 'getParticipantsByTypeAndID',
  participants_post: 'postParticipants',
  participants_put: 'putParticipantsByTypeAndID',
  participants_delete: 'deleteParticipants',
  participants_put_error: 'putParticipantsErrorByTypeAndID',
  participants_batch: 'postParticipantsBatch',
};

export interface OriginalMetrics {
  /** The ingress histogram of an accepted request: `seconds` from the handler's start to the answer. */
  ingress(route: string, subId: boolean, seconds: number): void;
  /** The domain histogram of one flow that ended now: `startedAt` a performance.now() at its start. */
  domain(route: string, startedAt: number, failed: boolean): void;
  /**
   * The original's egress histogram `egress_<step>` (src/models/participantEndpoint/facade.js): labels
   * success, endpointType, participantName; validateParticipant's only success.
   */
  egress(step: EgressStep, endpointType: string, participant: string, ok: boolean, seconds: number): void;
}

interface Outcomes {
  readonly ok: HistogramChild;
  readonly failed: HistogramChild;
}

/** What is recorded when the original's metrics are off (its INSTRUMENTATION.METRICS.DISABLED true). */
export const noOriginalMetrics: OriginalMetrics = Object.freeze({
  ingress() {},
  domain() {},
  egress() {},
});

/**
 * Bound (step, endpointType, participant) children at most: the participant comes from request headers
 * (an error callback's requester), so a flood of made-up names must not grow /metrics without bound.
 * Beyond it a new combination is not recorded; known ones still are.
 */
const MAX_EGRESS_SERIES = 10_000;

/**
 * Registers the original's names on `registry`. Every child is bound here, once: a request costs one map
 * read and one bucket search on a child, no label object and no second prom-client observe.
 */
export function createOriginalMetrics(
  registry: Registry,
  options: OriginalMetricsOptions = ORIGINAL_METRICS_DEFAULTS,
): OriginalMetrics {
  const { prefix, defaultLabels } = options;
  collectOriginalProcessMetrics(registry, options);
  const histograms = new Map<string, FastHistogram>();
  const histogram = (id: string) => {
    let found = histograms.get(id);
    if (!found) {
      found = new FastHistogram(
        `${prefix}${id}`,
        `${id} (account-lookup-service's name)`,
        ORIGINAL_HISTOGRAM_BUCKETS,
        registry,
      );
      histograms.set(id, found);
    }
    return found;
  };
  const outcomes = (id: string): Outcomes => ({
    // The series' own label first, as prom-client renders default labels after a series' own.
    ok: histogram(id).child(withDefaultLabels({ success: 'true' }, defaultLabels)),
    failed: histogram(id).child(withDefaultLabels({ success: 'false' }, defaultLabels)),
  });
  // The original ends an ingress timer only on the way to its 2xx answer, always with success true.
  const ingress = new Map<string, readonly [HistogramChild, HistogramChild]>();
  for (const [route, [plain, withSubId]] of Object.entries(INGRESS)) {
    ingress.set(route, [outcomes(`ing_${plain}`).ok, outcomes(`ing_${withSubId}`).ok]);
  }
  const domain = new Map<string, Outcomes>();
  for (const [route, id] of Object.entries(DOMAIN)) domain.set(route, outcomes(id));

  const validate = outcomes('egress_validateParticipant');
  // step → endpointType → participant → its two children, bound on first use and kept: a request costs
  // three map reads, no label object and no key string.
  const byStepAndType = childrenByPair((_step: EgressStep, _endpointType: string) => new Map<string, Outcomes>());
  let egressSeries = 0;
  const egressChildren = (step: EgressStep, endpointType: string, participantName: string) => {
    const byParticipant = byStepAndType(step, endpointType);
    let found = byParticipant.get(participantName);
    if (!found && egressSeries < MAX_EGRESS_SERIES) {
      egressSeries += 1;
      const labels = (success: string) => withDefaultLabels({ success, endpointType, participantName }, defaultLabels);
      const id = `egress_${step}`;
      found = { ok: histogram(id).child(labels('true')), failed: histogram(id).child(labels('false')) };
      byParticipant.set(participantName, found);
    }
    return found;
  };

  return {
    ingress(route, subId, seconds) {
      ingress.get(route)?.[subId ? 1 : 0].observe(seconds);
    },
    domain(route, startedAt, failed) {
      const flow = domain.get(route);
      if (flow) (failed ? flow.failed : flow.ok).observe((performance.now() - startedAt) / 1000);
    },
    egress(step, endpointType, participant, ok, seconds) {
      const children = step === 'validateParticipant' ? validate : egressChildren(step, endpointType, participant);
      if (children) (ok ? children.ok : children.failed).observe(seconds);
    },
  };
}
