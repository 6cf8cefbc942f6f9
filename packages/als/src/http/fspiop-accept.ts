import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Resource } from '../discovery/endpoints.js';
import { errorTarget, sendErrorCallback } from '../discovery/failures.js';
import { type FlowOutcome, failed } from '../discovery/outcome.js';
import { forwardCallback } from '../discovery/parties.js';
import type { DiscoveryPorts, PartyRef } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkSourceHeader, type IngressFacts } from '../fspiop/ingress.js';
import type { BodySchemaName, FspiopSchemas, IsoBodySchemaName } from '../fspiop/schemas.js';
import type { Serialisers } from '../fspiop/serialisers.js';
import type { Metrics } from '../observe/metrics.js';
import type { Admission, AwaitedCallback } from './admission.js';
import { FlowEnd } from './flow-end.js';
import { checkPath, headersOf, type PartyIdTypes, type PartyRequest, parseBody, partyOf } from './fspiop-checks.js';
import { proxyHeaderOf } from './proxy-ingress.js';

/** What the FSPIOP route plugins are given (fspiop-routes.ts registers them). */
export interface FspiopRouteDeps {
  readonly ports: DiscoveryPorts;
  readonly schemas: FspiopSchemas;
  readonly serialisers: Serialisers;
  readonly metrics: Metrics;
  /** Keeps background work visible to shutdown, which drains it, until the returned release is called. */
  readonly hold: (work: Promise<unknown>) => () => void;
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
  /** How the request's flow ended, once it has its one callback. */
  readonly end: FlowEnd;
  /**
   * GET /parties: the payee's callback that ends the lookup, unless the ALS answered with an error
   * callback.
   */
  readonly callback?: AwaitedCallback;
}

/** The ALS's own error callback answering an accepted request, and how it ended. */
type ErrorCallback = (error: AlsError) => Promise<FlowOutcome>;

/** Where an accepted request's error callback goes. */
export interface AcceptedTarget {
  readonly resource: Resource;
  readonly party: PartyRef;
  readonly facts: IngressFacts;
  readonly request: FastifyRequest;
  /** The proxy a request from another scheme came through: its answers go there. */
  readonly via?: string | undefined;
}

const noRelease = () => {};

/** The trace id of a request's traceparent, for the log line of a request that lost its callback. */
function traceIdOf(headers: FastifyRequest['headers']): string | undefined {
  const traceparent = headers.traceparent;
  return typeof traceparent === 'string' ? traceparent.split('-')[1] : undefined;
}

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
  admitted<R extends FastifyRequest>(
    route: string,
    handler: (request: R, reply: FastifyReply) => Accepted | Promise<Accepted>,
  ) {
    const { admission, retryAfterSeconds, metrics } = this.deps;
    const leave = () => admission.leave();
    const refused = (error: unknown) => {
      admission.leave();
      throw error;
    };
    const admit = (accepted: Accepted) => {
      const { callback } = accepted;
      if (callback === undefined) {
        accepted.end.onEnd(leave);
        return;
      }
      const expected = admission.expectCallback(callback);
      // The ALS's own error callback ended the lookup: no payee callback will come to free the slot.
      accepted.end.onEnd((outcome) => {
        if (outcome === null || outcome.kind === 'error_callback') expected.cancel();
      });
    };
    // Not async: a handler that answered without waiting (a cached source) costs no promise here, nor a
    // reaction in Fastify, which handles a thrown error as a rejected one.
    return (request: R, reply: FastifyReply): Promise<void> | undefined => {
      if (!admission.tryEnter()) {
        metrics.ingress(route, 503);
        reply.header('retry-after', String(retryAfterSeconds));
        throw new AlsError('OVERLOADED', { limit: admission.limit, seconds: retryAfterSeconds });
      }
      let accepted: Accepted | Promise<Accepted>;
      try {
        accepted = handler(request, reply);
      } catch (error) {
        return refused(error);
      }
      if (accepted instanceof Promise) return accepted.then(admit, refused);
      admit(accepted);
      return undefined;
    };
  }

  /**
   * The flow of an accepted request, once its answer is sent: tracked, timed, and ending in one callback
   * (docs/failures.md "Limits and failures"). A flow that threw (a serialiser, an answer of a shape nothing
   * expected, a bug) or resolved to no outcome is logged at warn with its trace id, counted
   * (`callback_missing`), and its requester gets the error callback the original's catch-all sends, 2001.
   * Its end (the flow's outcome, or that error callback's) is learnt from one reaction on `running` and
   * passed on synchronously: the domain timer, shutdown's tracking and the FlowEnd's listener. `started`:
   * when the flow began, the end of the request's validation (one clock read for both).
   */
  run(
    route: string,
    request: FastifyRequest,
    running: Promise<FlowOutcome>,
    errorCallback: ErrorCallback,
    started: number,
  ): FlowEnd {
    const { metrics, hold } = this.deps;
    const end = new FlowEnd();
    let release: () => void = noRelease;
    const finish = (outcome: FlowOutcome) => {
      metrics.domain(route, started, failed(outcome));
      release();
      end.settle(outcome);
    };
    // Only the error callback of a flow that had none can reject: it ends the flow all the same.
    const broken = () => {
      metrics.domain(route, started, true);
      release();
      end.settle(null);
    };
    const missing = (cause: unknown) => {
      this.log.warn(
        { traceId: traceIdOf(request.headers), route, url: request.url, err: cause },
        'accepted request ended without a callback; sending the error callback',
      );
      this.deps.ports.observe.event('callback_missing');
      return errorCallback(new AlsError('UNEXPECTED_FAILURE')).then(finish, broken);
    };
    // A flow's type promises an outcome; one that resolves to none anyway (plain JavaScript, a cast) is made good.
    const done = running.then((outcome) => (outcome === undefined ? missing(undefined) : finish(outcome)), missing);
    release = hold(done);
    return end;
  }

  /** Answers `status`, then runs `work` (or, `deferred`, the error callback of a failure found before it). */
  accept(
    reply: FastifyReply,
    route: string,
    status: number,
    started: number,
    deferred: AlsError | undefined,
    target: AcceptedTarget,
    work: () => Promise<FlowOutcome>,
  ): Accepted {
    const { metrics } = this.deps;
    const validated = metrics.observeStage('validation', started);
    metrics.ingress(route, status, target.party.subId !== undefined);
    reply.code(status).send();
    // Built only when there is an error to send: most accepted requests never need it.
    const errorCallback: ErrorCallback = (error) => {
      const { party, request, via } = target;
      const answered = { party, source: target.facts.source, version: target.facts.version, headers: request.headers };
      return sendErrorCallback(this.deps.ports, errorTarget(target.resource, answered, { via }), error);
    };
    const running = deferred ? errorCallback(deferred) : work();
    return { end: this.run(route, target.request, running, errorCallback, validated) };
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
    // Not async: nothing here waits, and Fastify handles a thrown error as a rejected one.
    return (request: PartyRequest, reply: FastifyReply): void => {
      const started = performance.now();
      const facts = headersOf(request, 'PUT', resource, ports.hubVersion, ports.apiType);
      // The original's validator checks the body before the path and headers (openapi-backend runs the
      // request body's schema first).
      parseBody(request, schemas, facts.bodyVersion, schema);
      checkPath(request, facts.bodyVersion, this.types);
      checkSourceHeader(request.headers);
      if (resource === 'parties' && facts.destination !== undefined)
        admission.callbackArrived(request.params.type, request.params.id, request.params.subId, facts.destination);
      const validated = metrics.observeStage('validation', started);
      metrics.ingress(route, 200, request.params.subId !== undefined);
      reply.code(200).send();
      // The original's putParties domain timer ends with success false when the callback could not be
      // forwarded (the error callback to its source): its outcome says so.
      const party = partyOf(request.params);
      this.run(
        route,
        request,
        forwardCallback(ports, {
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
        (error) =>
          sendErrorCallback(
            ports,
            errorTarget(resource, { party, source: facts.source, version: facts.version, headers: request.headers }),
            error,
          ),
        validated,
      );
    };
  }
}
