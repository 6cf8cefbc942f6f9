import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { lookUpParty } from '../discovery/parties.js';
import { type DiscoveryPorts, type Participant, UpstreamError } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkSourceHeader, type IngressFacts } from '../fspiop/ingress.js';
import type { Accepted, FspiopRouteContext } from './fspiop-accept.js';
import { checkCurrency, checkPath, headersOf, type PartyRequest, partyOf } from './fspiop-checks.js';
import { proxiedRequester, proxyHeaderOf } from './proxy-ingress.js';

/**
 * The source must be an active participant before the 202 (reference: 400 3101). When central-ledger
 * cannot be asked, the request is accepted and answered with one error callback (2001) if the source's
 * callback endpoints are known (cached); if they are not, no callback could reach it, so the answer is
 * synchronous: 500 2001, what the original answers to any central-ledger failure here. Never a 202 that
 * nobody hears the end of.
 */
function checkSource(ports: DiscoveryPorts, facts: IngressFacts): AlsError | undefined | Promise<AlsError | undefined> {
  const held = ports.directory.participant(facts.source);
  // A source the cache holds (nearly every lookup): answered without a promise.
  if (held instanceof Promise) return checkSourceUpstream(ports, facts, held);
  if (held === undefined) throw new AlsError('UNKNOWN_SOURCE', { source: facts.source });
  return undefined;
}

/** checkSource when central-ledger must be asked (a source the cache does not hold). */
async function checkSourceUpstream(
  ports: DiscoveryPorts,
  facts: IngressFacts,
  reading: Promise<Participant | undefined>,
): Promise<AlsError | undefined> {
  try {
    const participant = await reading;
    // Known is enough, active or not: the original's validateSourceFspHeader only fetches the participant.
    if (participant === undefined) throw new AlsError('UNKNOWN_SOURCE', { source: facts.source });
    return undefined;
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    try {
      await ports.directory.endpoints(facts.source);
    } catch {
      throw new AlsError('SOURCE_UNREACHABLE', { reason: error.reason, source: facts.source });
    }
    return new AlsError('SWITCH_FAILED', { reason: error.reason });
  }
}

/**
 * GET /parties/{Type}/{ID}[/{SubId}] (a lookup: 202, then the oracle and the forward to the payee) and its
 * callbacks PUT /parties/…[/error] (200, then the forward to the payer).
 */
export const partiesRoutes: FastifyPluginAsync<{ context: FspiopRouteContext }> = async (app, { context }) => {
  const { ports, schemas } = context.deps;

  /** The lookup accepted (202) once its source is settled: `deferred`, a failure its error callback answers. */
  const acceptLookup = (
    request: PartyRequest,
    reply: FastifyReply,
    started: number,
    facts: IngressFacts,
    currency: string | undefined,
    proxy: string | undefined,
    via: string | undefined,
    deferred: AlsError | undefined,
  ): Accepted => {
    const party = partyOf(request.params);
    const accepted = context.accept(
      reply,
      'parties_get',
      202,
      started,
      deferred,
      { resource: 'parties', party, facts, request, via },
      () =>
        lookUpParty(ports, {
          party,
          currency,
          source: facts.source,
          requester: via,
          proxy,
          destination: facts.destination,
          version: facts.version,
          headers: request.headers,
        }),
    );
    return { end: accepted.end, callback: { party, requester: facts.source } };
  };

  // Not async: a source the cache holds is checked, and the lookup accepted, without a promise.
  const getParties = (request: PartyRequest, reply: FastifyReply): Accepted | Promise<Accepted> => {
    const started = performance.now();
    const facts = headersOf(request, 'GET', 'parties', ports.hubVersion, ports.apiType);
    checkPath(request, facts.version, context.types);
    const currency = checkCurrency(request.query.currency, schemas.currencies);
    checkSourceHeader(request.headers);
    // Inter-scheme discovery only (off: one property read): a source of another scheme via its proxy.
    const proxy = ports.interScheme && proxyHeaderOf(request.headers);
    const fromSource = (via: string | undefined) => {
      if (via !== undefined) return acceptLookup(request, reply, started, facts, currency, proxy, via, undefined);
      const checked = checkSource(ports, facts);
      if (checked instanceof Promise)
        return checked.then((deferred) =>
          acceptLookup(request, reply, started, facts, currency, proxy, undefined, deferred),
        );
      return acceptLookup(request, reply, started, facts, currency, proxy, undefined, checked);
    };
    return proxy === undefined ? fromSource(undefined) : proxiedRequester(ports, facts.source, proxy).then(fromSource);
  };

  for (const suffix of ['', '/:subId']) {
    app.get(`/parties/:type/:id${suffix}`, context.admitted('parties_get', getParties));
    app.put(`/parties/:type/:id${suffix}`, context.callbackRoute('parties', false));
    app.put(`/parties/:type/:id${suffix}/error`, context.callbackRoute('parties', true));
  }
};
