import type { IncomingHttpHeaders } from 'node:http';
import { readBody } from '@mojafast/als';
import Fastify, { type FastifyInstance } from 'fastify';
import { Agent, type Dispatcher } from 'undici';
import { toOracle, toPayee, toPayer } from './relay-headers.js';

/**
 * The floor of `bench:als --floor`: the exchanges of one lookup on the ALS's HTTP stack (Fastify in, undici's
 * dispatch API out, the same server and client options), with no logic: GET /parties in (202), the oracle's GET
 * out (its answer's first fspId read), the payee FSP's GET out with the request's headers, PUT /parties in (200)
 * and out to the payer FSP with the body as it came (the same bytes). The FSPs' endpoint templates are read from
 * central-ledger's admin API once per FSP and kept, as the ALS's endpoint cache keeps them at its defaults. What
 * the ALS spends beyond this is its own: validation, routing rules, caches, metrics.
 *
 * Each exchange carries the headers the ALS sends on it at its defaults (relay-headers.ts), so both move
 * the same bytes; bodies are read by the ALS's own reader (readBody), as the same stack would.
 */
export interface RelayOptions {
  readonly port: number;
  readonly switchEndpoint: string;
  readonly oracleUrl: string;
}

/** Collects an answer's status and body: no response stream per request (the ALS's client does the same). */
class Collect implements Dispatcher.DispatchHandler {
  #status = 0;
  readonly #chunks: Buffer[] = [];
  constructor(
    private readonly resolve: (answer: { status: number; body: Buffer }) => void,
    private readonly reject: (error: Error) => void,
  ) {}
  onRequestStart(): void {}
  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }
  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }
  onResponseEnd(): void {
    const chunks = this.#chunks;
    this.resolve({ status: this.#status, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) });
  }
  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.reject(error);
  }
}

/** The ALS's default body limit (ALS_BODY_LIMIT_BYTES). */
const bodyLimit = 65_536;

export async function startRelay(options: RelayOptions): Promise<FastifyInstance> {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  const send = (url: string, method: 'GET' | 'PUT', headers: IncomingHttpHeaders, body?: Buffer) =>
    new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const slash = url.indexOf('/', url.indexOf('//') + 2);
      agent.dispatch(
        { origin: url.slice(0, slash), path: url.slice(slash), method, headers, body: body ?? null },
        new Collect(resolve, reject),
      );
    });

  /** Endpoint templates per FSP and type, read once. */
  const endpoints = new Map<string, Promise<Map<string, string>>>();
  const endpointOf = async (fsp: string, type: string): Promise<string> => {
    let known = endpoints.get(fsp);
    if (!known) {
      known = send(`${options.switchEndpoint}/participants/${fsp}/endpoints`, 'GET', {}).then(
        ({ body }) =>
          new Map((JSON.parse(body.toString()) as { type: string; value: string }[]).map((e) => [e.type, e.value])),
      );
      endpoints.set(fsp, known);
      // A failed read is not kept: once kept, every later lookup to that FSP failed with it for the whole run
      // (a run of bench:als --floor lost all its lookups so).
      const read = known;
      read.catch(() => {
        if (endpoints.get(fsp) === read) endpoints.delete(fsp);
      });
    }
    const template = (await known).get(type);
    if (!template) throw new Error(`${fsp} has no ${type} endpoint`);
    return template;
  };
  const fill = (template: string, type: string, id: string) =>
    template.replace('{{partyIdType}}', type).replace('{{partyIdentifier}}', id);

  const app = Fastify({
    childLoggerFactory: (parent) => parent,
    bodyLimit,
    keepAliveTimeout: 65_000,
    exposeHeadRoutes: false,
    http: { optimizeEmptyRequests: true },
  });
  // The ALS's parsers (fspiop-plugin.ts registerFspiopBasics): its reader, found by the same RegExp.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/vnd\.interoperability\./, { bodyLimit }, readBody(bodyLimit));
  app.addContentTypeParser('*', { bodyLimit }, readBody(bodyLimit));
  app.get<{ Params: { type: string; id: string } }>('/parties/:type/:id', (request, reply) => {
    const { type, id } = request.params;
    reply.code(202).send();
    void (async () => {
      const oracle = await send(`${options.oracleUrl}/participants/${type}/${id}`, 'GET', toOracle(request.headers));
      const fsp = (JSON.parse(oracle.body.toString()) as { partyList: { fspId: string }[] }).partyList[0]?.fspId;
      if (!fsp) throw new Error(`the oracle knows no FSP for ${type}/${id}`);
      const url = fill(await endpointOf(fsp, 'FSPIOP_CALLBACK_URL_PARTIES_GET'), type, id);
      await send(url, 'GET', toPayee(request.headers, fsp));
    })().catch((error: unknown) => process.stderr.write(`relay: ${String(error)}\n`));
  });
  app.put<{ Params: { type: string; id: string }; Body: Buffer }>('/parties/:type/:id', (request, reply) => {
    const { type, id } = request.params;
    reply.code(200).send();
    const payer = request.headers['fspiop-destination'];
    void (async () => {
      if (typeof payer !== 'string') throw new Error('a callback without FSPIOP-Destination');
      const url = fill(await endpointOf(payer, 'FSPIOP_CALLBACK_URL_PARTIES_PUT'), type, id);
      await send(url, 'PUT', toPayer(request.headers), request.body);
    })().catch((error: unknown) => process.stderr.write(`relay: ${String(error)}\n`));
  });
  app.addHook('onClose', () => agent.close());
  await app.listen({ port: options.port, host: '127.0.0.1' });
  return app;
}
