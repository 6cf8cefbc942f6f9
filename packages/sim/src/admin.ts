import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { answerUnlessFaulted, type FaultOptions } from './faults.js';
import { type Bind, listen, pathSegments, sendJson } from './http.js';

/** One participant as the simulated central-ledger knows it. */
export interface ParticipantSpec {
  /** Base URL its callback endpoints point at (e.g. a payee simulator). */
  readonly endpointBase: string;
  readonly currencies?: readonly string[];
  readonly isActive?: boolean;
  /** A proxy to another scheme (central-ledger's participant.isProxy): listed by GET /participants?isProxy=true. */
  readonly isProxy?: boolean;
}

export interface AdminSimOptions {
  readonly port?: number;
  /** Listen address and advertised host (loopback by default). */
  readonly bind?: Bind;
  /** FSPs that exist but are not active, their endpoints on the payer simulator (their callbacks are seen). */
  readonly inactiveFsps?: readonly string[];
  /** Number of generated payee FSPs, payeefsp1..payeefspN. */
  readonly fsps?: number;
  /** Number of extra generated payer FSPs payerfsp1..payerfspM (payerfsp always exists). */
  readonly payers?: number;
  readonly payeeUrl?: string;
  readonly payerUrl?: string;
  readonly hubName?: string;
  readonly currencies?: readonly string[];
  /** Explicit participants; they override generated ones of the same name. */
  readonly participants?: Readonly<Record<string, ParticipantSpec>>;
  /** FSPs whose endpoints point at a closed port on 127.0.0.1. */
  readonly deadEndpointFsps?: readonly string[];
  readonly faults?: FaultOptions;
}

export interface AdminSim {
  readonly url: string;
  readonly port: number;
  /** Requests answered (or faulted), by kind: 'participant', 'endpoints', 'other'. */
  readonly stats: { participant: number; endpoints: number; health: number; other: number };
  /** Replaces or adds a participant at run time. */
  setParticipant(name: string, spec: ParticipantSpec): void;
  removeParticipant(name: string): void;
  close(): Promise<void>;
}

/**
 * The callback URL templates an FSP registers in central-ledger. The `{{...}}` placeholders are the ones
 * central-services-shared's endpoint templating fills in (partyIdType, partyIdentifier, partySubIdOrType,
 * requestId).
 */
export function endpointList(base: string): { type: string; value: string }[] {
  const parties = `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`;
  const partiesSub = `${parties}/{{partySubIdOrType}}`;
  const participants = `${base}/participants/{{partyIdType}}/{{partyIdentifier}}`;
  const participantsSub = `${participants}/{{partySubIdOrType}}`;
  return [
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: parties },
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_PUT', value: parties },
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', value: `${parties}/error` },
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', value: partiesSub },
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT', value: partiesSub },
    { type: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR', value: `${partiesSub}/error` },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', value: participants },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', value: `${participants}/error` },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT', value: participantsSub },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR', value: `${participantsSub}/error` },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT', value: `${base}/participants/{{requestId}}` },
    { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR', value: `${base}/participants/{{requestId}}/error` },
  ];
}

const created = '2026-01-01T00:00:00.000Z';

/** The body of central-ledger's GET /participants/{name} (handler `entityItem`: name, id link, accounts). */
function participantBody(adminUrl: string, name: string, index: number, spec: ParticipantSpec): Buffer {
  const link = `${adminUrl}/participants/${encodeURIComponent(name)}`;
  const active = spec.isActive === false ? 0 : 1;
  const accounts = (spec.currencies ?? ['USD']).flatMap((currency, i) => [
    {
      id: index * 100 + i * 2 + 1,
      ledgerAccountType: 'POSITION',
      currency,
      isActive: active,
      createdDate: created,
      createdBy: 'sim',
    },
    {
      id: index * 100 + i * 2 + 2,
      ledgerAccountType: 'SETTLEMENT',
      currency,
      isActive: active,
      createdDate: created,
      createdBy: 'sim',
    },
  ]);
  return Buffer.from(
    JSON.stringify({
      name,
      id: link,
      created,
      isActive: active,
      links: { self: link },
      accounts,
      isProxy: spec.isProxy ? 1 : 0,
    }),
  );
}

/** central-ledger's answer to an unknown participant name (handleMissingRecord: FSPIOP 3200). */
const notFoundBody = Buffer.from(
  JSON.stringify({
    errorInformation: {
      errorCode: '3200',
      errorDescription: 'Generic ID not found - The requested resource could not be found.',
    },
  }),
);

async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export async function startAdminSim(opts: AdminSimOptions = {}): Promise<AdminSim> {
  const hubName = opts.hubName ?? 'Hub';
  const currencies = opts.currencies ?? ['USD', 'EUR'];
  const payeeUrl = opts.payeeUrl ?? 'http://127.0.0.1:1';
  const payerUrl = opts.payerUrl ?? 'http://127.0.0.1:1';
  const specs = new Map<string, ParticipantSpec>();
  specs.set(hubName, { endpointBase: payerUrl, currencies });
  for (let i = 1; i <= (opts.fsps ?? 10); i++) specs.set(`payeefsp${i}`, { endpointBase: payeeUrl, currencies });
  specs.set('payerfsp', { endpointBase: payerUrl, currencies });
  for (let i = 1; i <= (opts.payers ?? 0); i++) specs.set(`payerfsp${i}`, { endpointBase: payerUrl, currencies });
  for (const name of opts.inactiveFsps ?? []) specs.set(name, { endpointBase: payerUrl, currencies, isActive: false });
  for (const [name, spec] of Object.entries(opts.participants ?? {})) specs.set(name, spec);
  if (opts.deadEndpointFsps?.length) {
    const dead = await closedPortUrl();
    for (const name of opts.deadEndpointFsps) {
      const spec = specs.get(name) ?? { currencies };
      specs.set(name, { ...spec, endpointBase: dead });
    }
  }

  const stats = { participant: 0, endpoints: 0, health: 0, other: 0 };
  const cache = new Map<string, { participant: Buffer; endpoints: Buffer }>();
  let adminUrl = '';
  const bodiesOf = (name: string): { participant: Buffer; endpoints: Buffer } | undefined => {
    const hit = cache.get(name);
    if (hit) return hit;
    const spec = specs.get(name);
    if (!spec) return undefined;
    const bodies = {
      participant: participantBody(adminUrl, name, cache.size + 1, spec),
      endpoints: Buffer.from(JSON.stringify(endpointList(spec.endpointBase))),
    };
    cache.set(name, bodies);
    return bodies;
  };

  const healthBody = Buffer.from('{"status":"OK"}');
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const segments = pathSegments(req.url);
    // central-ledger's GET /health, which the ALS's /health probes.
    if (req.method === 'GET' && segments.length === 1 && segments[0] === 'health') {
      stats.health++;
      sendJson(res, 200, healthBody);
      return;
    }
    // central-ledger's GET /participants[?isProxy=true] (src/api/participants/handler.js getAll): every
    // participant, or only the proxies; the original ALS asks it for the proxies to fan a lookup out to.
    if (req.method === 'GET' && segments.length === 1 && segments[0] === 'participants') {
      stats.other++;
      const onlyProxies = new URL(req.url ?? '/', 'http://sim').searchParams.get('isProxy') === 'true';
      const list = [...specs.keys()]
        .filter((name) => !onlyProxies || specs.get(name)?.isProxy)
        .map((name) => JSON.parse((bodiesOf(name) as { participant: Buffer }).participant.toString()) as unknown);
      sendJson(res, 200, Buffer.from(JSON.stringify(list)));
      return;
    }
    if (req.method !== 'GET' || segments[0] !== 'participants' || segments.length < 2 || segments.length > 3) {
      stats.other++;
      sendJson(res, 404, undefined);
      return;
    }
    const wantsEndpoints = segments.length === 3;
    if (wantsEndpoints && segments[2] !== 'endpoints') {
      stats.other++;
      sendJson(res, 404, undefined);
      return;
    }
    if (wantsEndpoints) stats.endpoints++;
    else stats.participant++;
    const bodies = bodiesOf(segments[1] as string);
    if (!bodies) {
      sendJson(res, 400, notFoundBody);
      return;
    }
    sendJson(res, 200, wantsEndpoints ? bodies.endpoints : bodies.participant);
  };

  const running = await listen(
    (req, res) => {
      req.resume();
      answerUnlessFaulted(opts.faults, req, res, answer);
    },
    opts.port ?? 0,
    opts.bind,
  );
  adminUrl = running.url;

  return {
    url: running.url,
    port: running.port,
    stats,
    setParticipant(name, spec) {
      specs.set(name, spec);
      cache.delete(name);
    },
    removeParticipant(name) {
      specs.delete(name);
      cache.delete(name);
    },
    close: running.close,
  };
}
