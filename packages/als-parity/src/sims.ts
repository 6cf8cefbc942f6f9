import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointList } from '@mojafast/sim';

/** One request an upstream received, as it arrived. */
export interface Received {
  /** `oracle`, `ledger` (central-ledger's admin API) or `fsp` (any FSP's callback endpoint). */
  readonly to: 'oracle' | 'ledger' | 'fsp';
  readonly method: string;
  /** Path and query as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Order of arrival within the run. */
  readonly seq: number;
}

/** How central-ledger knows an FSP. */
export interface ParticipantState {
  readonly active: boolean;
  /**
   * `ok`: the full list of callback endpoints; `none`: an empty list; `dead`: URLs on a closed port;
   * `refuses`: endpoints that answer 400 with an FSPIOP error body.
   */
  readonly endpoints: 'ok' | 'none' | 'dead' | 'refuses';
  readonly currencies?: readonly string[];
  /** A proxy of another scheme (isProxy 1): listed by GET /participants?isProxy=true. */
  readonly proxy?: boolean;
}

/** What the oracle answers one request. */
export type OracleReply =
  | { readonly status: number; readonly body?: unknown; readonly raw?: string }
  | { readonly fault: 'reset' };

/** The oracle's answers for one case, by operation; an operation not listed gets `fallback`. */
export interface OracleScript {
  readonly get?: OracleReply;
  readonly post?: OracleReply;
  readonly put?: OracleReply;
  readonly delete?: OracleReply;
  /** POST /participants (the batch). */
  readonly batch?: OracleReply;
}

const fallback: Record<keyof OracleScript, OracleReply> = {
  get: { status: 200, body: { partyList: [] } },
  post: { status: 201 },
  put: { status: 200 },
  delete: { status: 204 },
  batch: { status: 201, body: { partyList: [] } },
};

interface Listening {
  readonly server: Server;
  readonly url: string;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number): Promise<Listening> {
  const server = createServer({ keepAlive: true, requestTimeout: 0 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What an FSP whose endpoints are `refuses` answers every request: a synchronous FSPIOP error. */
const fspRefusal = {
  errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error - refused by the FSP' },
};

function send(res: ServerResponse, status: number, body?: unknown, raw?: string): void {
  const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  if (text === undefined) {
    res.writeHead(status, { 'content-length': '0' });
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface SimPorts {
  /** central-ledger's admin API; the oracle, the FSPs and the closed port follow (+1, +2, +3). 0: free ports. */
  readonly base: number;
}

/**
 * The upstreams of an ALS under test: central-ledger's admin API, an oracle and every FSP's callback
 * endpoint, each recording every request it receives. What they answer is set per case (participants,
 * oracle script); FSPs answer 200/202 and never call back, so a run is deterministic.
 */
export class RecordingSims {
  readonly received: Received[] = [];
  private readonly participants = new Map<string, ParticipantState>();
  /** Oracle scripts by a token that appears in the request's path or body (the case's party IDs). */
  private readonly scripts = new Map<string, OracleScript>();
  private seq = 0;

  private constructor(
    private readonly servers: Server[],
    readonly ledgerUrl: string,
    readonly oracleUrl: string,
    readonly fspUrl: string,
    /** A URL on which nothing listens: an oracle or FSP that is down. */
    readonly deadUrl: string,
    readonly hubName: string,
  ) {}

  static async start(ports: SimPorts = { base: 0 }, hubName = 'Hub'): Promise<RecordingSims> {
    const at = (offset: number) => (ports.base === 0 ? 0 : ports.base + offset);
    const holder: { sims?: RecordingSims } = {};
    const route = (to: Received['to']) => (req: IncomingMessage, res: ServerResponse) => {
      void holder.sims?.handle(to, req, res);
    };
    const ledger = await listen(route('ledger'), at(0));
    const oracle = await listen(route('oracle'), at(1));
    const fsp = await listen(route('fsp'), at(2));
    const dead = ports.base === 0 ? await closedPort() : at(3);
    const sims = new RecordingSims(
      [ledger.server, oracle.server, fsp.server],
      ledger.url,
      oracle.url,
      fsp.url,
      `http://127.0.0.1:${dead}`,
      hubName,
    );
    holder.sims = sims;
    sims.setParticipant(hubName, { active: true, endpoints: 'ok' });
    return sims;
  }

  setParticipant(name: string, state: ParticipantState): void {
    this.participants.set(name, state);
  }

  removeParticipant(name: string): void {
    this.participants.delete(name);
  }

  /** The oracle answers requests whose path or body contains `token` with `script`. */
  setOracleScript(token: string, script: OracleScript): void {
    this.scripts.set(token, script);
  }

  removeOracleScript(token: string): void {
    this.scripts.delete(token);
  }

  /** The base URL of an FSP's callback endpoints. */
  fspBase(name: string): string {
    return `${this.fspUrl}/fsp/${encodeURIComponent(name)}`;
  }

  private async handle(to: Received['to'], req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = req.url ?? '/';
    this.received.push({ to, method: req.method ?? '', url, headers: req.headers, body, seq: this.seq++ });
    if (to === 'ledger') this.answerLedger(req.method ?? '', url, res);
    else if (to === 'oracle') this.answerOracle(req.method ?? '', url, body, res);
    else if (url.startsWith('/refuses/')) send(res, 400, fspRefusal);
    else send(res, req.method === 'PUT' ? 200 : 202);
  }

  private answerLedger(method: string, url: string, res: ServerResponse): void {
    const [status, body] = this.ledgerReply(method, url);
    send(res, status, body);
  }

  /** central-ledger's answer: status and JSON body (undefined: none). */
  private ledgerReply(method: string, url: string): [number, unknown] {
    const path = new URL(url, 'http://ledger').pathname;
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (method === 'GET' && path === '/health') return [200, { status: 'OK' }];
    if (method === 'GET' && path === '/participants') {
      if (new URL(url, 'http://ledger').searchParams.get('isProxy') !== 'true') return [200, []];
      const proxies = [...this.participants].filter(([, state]) => state.proxy);
      return [200, proxies.map(([name, state]) => this.participantBody(name, state))];
    }
    if (method !== 'GET' || segments[0] !== 'participants' || segments.length < 2 || segments.length > 3)
      return [404, undefined];
    const name = segments[1] as string;
    const state = this.participants.get(name);
    if (!state) {
      return [
        400,
        {
          errorInformation: {
            errorCode: '3200',
            errorDescription: 'Generic ID not found - The requested resource could not be found.',
          },
        },
      ];
    }
    if (segments.length === 3) {
      if (segments[2] !== 'endpoints') return [404, undefined];
      if (state.endpoints === 'none') return [200, []];
      if (state.endpoints === 'dead') return [200, endpointList(`${this.deadUrl}/fsp/${name}`)];
      if (state.endpoints === 'refuses')
        return [200, endpointList(`${this.fspUrl}/refuses/${encodeURIComponent(name)}`)];
      return [200, endpointList(this.fspBase(name))];
    }
    return [200, this.participantBody(name, state)];
  }

  /** central-ledger's participant: GET /participants/{name}, and an entry of GET /participants. */
  private participantBody(name: string, state: ParticipantState): unknown {
    const link = `${this.ledgerUrl}/participants/${encodeURIComponent(name)}`;
    const active = state.active ? 1 : 0;
    const accounts = (state.currencies ?? ['USD', 'EUR']).flatMap((currency, i) => [
      {
        id: i * 2 + 1,
        ledgerAccountType: 'POSITION',
        currency,
        isActive: active,
        createdDate: '2026-01-01T00:00:00.000Z',
        createdBy: 'sim',
      },
      {
        id: i * 2 + 2,
        ledgerAccountType: 'SETTLEMENT',
        currency,
        isActive: active,
        createdDate: '2026-01-01T00:00:00.000Z',
        createdBy: 'sim',
      },
    ]);
    return {
      name,
      id: link,
      created: '2026-01-01T00:00:00.000Z',
      isActive: active,
      links: { self: link },
      accounts,
      isProxy: state.proxy ? 1 : 0,
    };
  }

  private answerOracle(method: string, url: string, body: string, res: ServerResponse): void {
    const path = new URL(url, 'http://oracle').pathname;
    const batch = method === 'POST' && path === '/participants';
    const operation: keyof OracleScript = batch ? 'batch' : (method.toLowerCase() as keyof OracleScript);
    let script: OracleScript | undefined;
    for (const [token, candidate] of this.scripts) {
      if (url.includes(token) || body.includes(token)) {
        script = candidate;
        break;
      }
    }
    const reply = script?.[operation] ?? fallback[operation] ?? { status: 405 };
    if ('fault' in reply) {
      res.socket?.destroy();
      return;
    }
    send(res, reply.status, reply.body, reply.raw);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }
}
