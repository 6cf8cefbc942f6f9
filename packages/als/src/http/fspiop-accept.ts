import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../discovery/endpoints.js';
import { errorTarget, sendErrorCallback } from '../discovery/failures.js';
import { forwardCallback } from '../discovery/parties.js';
import type { DiscoveryPorts, PartyRef } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkSourceHeader, type IngressFacts } from '../fspiop/ingress.js';
import type { BodySchemaName, FspiopSchemas, IsoBodySchemaName } from '../fspiop/schemas.js';
import type { Serialisers } from '../fspiop/serialisers.js';
import type { Metrics } from '../observe/metrics.js';
import { type Admission, callbackKey } from './admission.js';
import { checkPath, headersOf, type PartyIdTypes, type PartyRequest, parseBody, partyOf } from './fspiop-checks.js';
import { proxyHeaderOf } from './proxy-ingress.js';

/** What the FSPIOP route plugins are given (fspiop-routes.ts registers them). */
export interface FspiopRouteDeps {
  readonly ports: DiscoveryPorts;
  readonly schemas: FspiopSchemas;
  readonly serialisers: Serialisers;
  readonly metrics: Metrics;
  /** Keeps background work visible to shutdown, which drains it. */
  readonly track: (work: Promise<void>) => void;
  /** DELETE_PARTICIPANT_VALIDATION_ENABLED: a DELETE /participants must come from the entry's owner. */
  readonly checkDeleteOwner?: boolean;
  /** Party ID types served beyond the API definition's (FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE). */
  readonly extraPartyIdTypes?: ReadonlySet<string>;
  /** DELETE /endpointcache, which the original serves on this port too. */
  readonly clearEndpointCache?: () => void;
  /** Lookups in flight and their bound (docs/failures.md "Limits and failures"). */
  readonly admission: Admission;
  /** Retry-After of a refusal. */
  readonly retryAfterSeconds: number;
}

/** The background work of an accepted request (wrapped: an async handler would otherwise await it). */
export interface Accepted {
  readonly done: Promise<void>;
  /** GET /parties: the payee's callback that ends the lookup, unless the ALS answered with an error callback. */
  readonly callback?: { readonly key: string; readonly outcome: Outcome };
}

/**
 * What one accepted request's flow did: sent anything to an FSP (a forward, a callback), or its own error
 * callback (sent or failed), or ended where nothing is to be sent (a PUT from an unknown source, a
 * proxy's error held back, a proxy's success after another's: its lookup has its answer). None of these: it ended without a callback, which the routes make good.
 */
export interface Outcome {
  errorCallback: boolean;
  sent: boolean;
  silent: boolean;
}

export const newOutcome = (errorCallback = false): Outcome => ({ errorCallback, sent: false, silent: false });

/** Where an accepted request's error callback goes. */
export interface AcceptedTarget {
  readonly resource: Resource;
  readonly party: PartyRef;
  readonly facts: IngressFacts;
  readonly request: FastifyRequest;
  /** The proxy a request from another scheme came through: its answers go there. */
  readonly via?: string | undefined;
}

/** The trace id of a request's traceparent, for the log line of a request that lost its callback. */
function traceIdOf(headers: FastifyRequest['headers']): string | undefined {
  const traceparent = headers.traceparent;
  return typeof traceparent === 'string' ? traceparent.split('-')[1] : undefined;
}

const noop = () => {};

/**
 * What every FSPIOP route shares once its request is valid: admission, the answer (202/200) with its
 * ingress metrics, the flow run after it and tracked for shutdown, and the guarantee of one callback.
 */
export class FspiopRouteContext {
  readonly types: PartyIdTypes;

  constructor(
    readonly deps: FspiopRouteDeps,
    types: PartyIdTypes,
    private readonly log: FastifyBaseLogger,
  ) {
    this.types = types;
  }

  /**
   * Admission control (admission.ts): past the bound the request is answered 503 2003 with Retry-After
   * before any header is parsed or upstream asked, so an overload costs the refused client microseconds
   * and the accepted ones nothing.
   */
  admitted<R extends FastifyRequest>(route: string, handler: (request: R, reply: FastifyReply) => Promise<Accepted>) {
    const { admission, retryAfterSeconds, metrics } = this.deps;
    const leave = () => admission.leave();
    return async (request: R, reply: FastifyReply) => {
      if (!admission.tryEnter()) {
        metrics.ingress(route, 503);
        reply.header('retry-after', String(retryAfterSeconds));
        throw new AlsError('OVERLOADED', { limit: admission.limit, seconds: retryAfterSeconds });
      }
      let accepted: Accepted;
      try {
        accepted = await handler(request, reply);
      } catch (error) {
        admission.leave();
        throw error;
      }
      const { callback } = accepted;
      if (callback === undefined) {
        accepted.done.then(leave, leave);
        return;
      }
      const expected = admission.expectCallback(callback.key);
      const cancel = () => expected.cancel();
      accepted.done.then(() => {
        if (callback.outcome.errorCallback) expected.cancel();
      }, cancel);
    };
  }

  /**
   * The flows' ports for one request, noting whether it ended in the ALS's own error callback (then no
   * payee callback will come to end a lookup's admission slot, and the original's domain histogram records
   * success false). Object.create: the ports are not copied, only observe and egress are replaced.
   */
  watchedPorts(outcome: Outcome): DiscoveryPorts {
    const { ports } = this.deps;
    const watched = Object.create(ports) as { -readonly [K in keyof DiscoveryPorts]: DiscoveryPorts[K] };
    const { observe, egress } = ports;
    watched.observe = {
      stage: observe.stage,
      endToEnd: observe.endToEnd,
      event(event) {
        if (event === 'error_callback_sent' || event === 'error_callback_failed') outcome.errorCallback = true;
        else if (event === 'unknown_source' || event === 'proxy_error_dropped' || event === 'proxy_success_dropped')
          outcome.silent = true;
        observe.event(event);
      },
    };
    const markSent = () => {
      outcome.sent = true;
    };
    watched.egress = {
      send(request) {
        const sending = egress.send(request);
        sending.then(markSent, noop);
        return sending;
      },
    };
    return watched;
  }

  /**
   * Every accepted request ends in a callback (docs/failures.md "Limits and failures"): a flow that threw (a serialiser,
   * an answer of a shape nothing expected, a bug) or returned without sending anything is logged at warn with
   * its trace id, counted (`callback_missing`), and its requester gets the error callback the original's
   * catch-all sends, 2001.
   */
  ensureCallback(
    running: Promise<void>,
    outcome: Outcome,
    route: string,
    request: FastifyRequest,
    errorCallback: (watched: DiscoveryPorts, error: AlsError) => Promise<void>,
  ): Promise<void> {
    const missing = (cause: unknown) => {
      this.log.warn(
        { traceId: traceIdOf(request.headers), route, url: request.url, err: cause },
        'accepted request ended without a callback; sending the error callback',
      );
      this.deps.ports.observe.event('callback_missing');
      return errorCallback(this.watchedPorts(outcome), new AlsError('UNEXPECTED_FAILURE'));
    };
    return running.then(
      () => (outcome.sent || outcome.errorCallback || outcome.silent ? undefined : missing(undefined)),
      missing,
    );
  }

  /** The flow of an accepted request, once its answer is sent: tracked, timed, and ending in one callback. */
  run(
    route: string,
    request: FastifyRequest,
    outcome: Outcome,
    running: Promise<void>,
    errorCallback: (watched: DiscoveryPorts, error: AlsError) => Promise<void>,
    failed: () => boolean = () => outcome.errorCallback,
  ): Promise<void> {
    const done = this.ensureCallback(running, outcome, route, request, errorCallback);
    this.deps.metrics.domain(route, done, failed);
    this.deps.track(done);
    return done;
  }

  /** Answers `status`, then runs `work` (or, `deferred`, the error callback of a failure found before it). */
  accept(
    reply: FastifyReply,
    route: string,
    status: number,
    started: number,
    deferred: AlsError | undefined,
    target: AcceptedTarget,
    work: () => Promise<void>,
    outcome: Outcome,
  ): Accepted {
    const { metrics } = this.deps;
    metrics.observeStage('validation', started);
    metrics.ingress(route, status, target.party.subId !== undefined);
    reply.code(status).send();
    const answered = { party: target.party, source: target.facts.source, version: target.facts.version };
    const to = errorTarget(target.resource, { ...answered, headers: target.request.headers }, { via: target.via });
    const errorCallback = (watched: DiscoveryPorts, error: AlsError) => sendErrorCallback(watched, to, error);
    const running = deferred ? errorCallback(this.watchedPorts(outcome), deferred) : work();
    const done = this.run(
      route,
      target.request,
      outcome,
      running,
      errorCallback,
      () => deferred !== undefined || outcome.errorCallback,
    );
    return { done };
  }

  /**
   * PUT /parties|participants/{Type}/{ID}[/{SubId}][/error]: a callback, answered 200 and forwarded to its
   * destination.
   */
  callbackRoute(resource: Resource, isError: boolean) {
    const { ports, schemas, metrics, admission } = this.deps;
    // In ISO 20022 mode PUT /parties bodies are ISO ones; /participants keeps its FSPIOP bodies.
    const iso = resource === 'parties' && ports.apiType === 'iso20022';
    const schema: BodySchemaName | IsoBodySchemaName = iso
      ? isError
        ? 'GetPartiesError_IdentificationVerificationReportV03'
        : 'GetParties_IdentificationVerificationReportV03'
      : isError
        ? 'ErrorInformationObject'
        : resource === 'parties'
          ? 'PartiesTypeIDPutResponse'
          : 'ParticipantsTypeIDPutResponse';
    const route = `${resource}_put${isError ? '_error' : ''}`;
    return async (request: PartyRequest, reply: FastifyReply) => {
      const started = performance.now();
      const facts = headersOf(request, 'PUT', resource, ports.hubVersion, ports.apiType);
      // The original's validator checks the body before the path and headers (openapi-backend runs the
      // request body's schema first).
      parseBody(request, schemas, facts.bodyVersion, schema);
      checkPath(request, facts.bodyVersion, this.types);
      checkSourceHeader(request.headers);
      if (resource === 'parties' && facts.destination !== undefined)
        admission.callbackArrived(
          callbackKey(request.params.type, request.params.id, request.params.subId, facts.destination),
        );
      metrics.observeStage('validation', started);
      metrics.ingress(route, 200, request.params.subId !== undefined);
      reply.code(200).send();
      // The original's putParties domain timer ends with success false when the callback could not be
      // forwarded (the error callback to its source): the watched ports note that.
      const outcome = newOutcome();
      const party = partyOf(request.params);
      this.run(
        route,
        request,
        outcome,
        forwardCallback(this.watchedPorts(outcome), {
          resource,
          party,
          isError,
          source: facts.source,
          destination: facts.destination,
          version: facts.version,
          headers: request.headers,
          body: request.body as Buffer,
          proxy: ports.interScheme && proxyHeaderOf(request.headers),
        }),
        (watched, error) =>
          sendErrorCallback(
            watched,
            errorTarget(resource, { party, source: facts.source, version: facts.version, headers: request.headers }),
            error,
          ),
      );
    };
  }
}
