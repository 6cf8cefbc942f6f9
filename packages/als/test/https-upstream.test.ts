import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfigValues } from '../src/config/index.js';
import { errorCodeOf, getParties, newTraceId, type Stack, settled, startStack } from './helpers.js';
import { makeCertificates, type TestCertificates } from './tls-certs.js';

// Upstreams over https:// on loopback: TLS servers in front of the oracle simulator, one whose certificate
// is signed by a CA the ALS is given (ALS_UPSTREAM_CA_FILE) and one signed by a CA it does not know.
let trusted: TestCertificates;
let untrusted: TestCertificates;
const servers: Server[] = [];
const stacks: Stack[] = [];

beforeAll(() => {
  trusted = makeCertificates('mojafast-trusted');
  untrusted = makeCertificates('mojafast-untrusted');
});
afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.close()));
  for (const server of servers) server.close();
  trusted?.remove();
  untrusted?.remove();
});

/**
 * An https:// server passing every request on to `target` (http://, set once the simulators run); it counts
 * the TLS handshakes.
 */
async function tlsFront(certs: TestCertificates) {
  const state = { handshakes: 0, target: '' };
  const server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const upstream = httpRequest(
      `${state.target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('secureConnection', () => state.handshakes++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, state };
}

/** Simulators and an ALS whose one oracle is a TLS front (signed by `certs`) of the oracle simulator. */
async function stackBehind(certs: TestCertificates, config: Partial<ConfigValues> = {}) {
  const front = await tlsFront(certs);
  const stack = await startStack({ config: { upstreamCaFile: trusted.caFile, oracleUrl: front.url, ...config } });
  stacks.push(stack);
  front.state.target = stack.sims.oracle.url;
  return { stack, front };
}

/** A lookup's callback to the payer: the oracle's answer, then the payee's PUT, or an error. */
async function lookUp(stack: Stack, id: string) {
  const traceId = newTraceId();
  expect((await getParties(stack.als.url, `MSISDN/${id}`, traceId)).status).toBe(202);
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  await settled(stack.als);
  return { callback, traceId };
}

const metricsOf = async (stack: Stack) => (await fetch(`${stack.als.adminUrl}/metrics`)).text();

describe('https:// upstreams', () => {
  it('an oracle over https answers lookups with the CA of ALS_UPSTREAM_CA_FILE, on kept-alive connections', async () => {
    const { stack, front } = await stackBehind(trusted);
    for (const id of ['46730000001', '46730000002', '46730000003']) {
      const { callback } = await lookUp(stack, id);
      expect(callback?.kind).toBe('success');
    }
    // Three oracle requests in sequence, one TLS handshake: the pool's socket is kept.
    expect(front.state.handshakes).toBe(1);
    expect(await metricsOf(stack)).toMatch(new RegExp(`als_upstream_pool\\{[^}]*origin="${front.url}"`));
  });

  it('an oracle whose certificate is not trusted: one error callback 1001, as unreachable; counted and logged with its cause', async () => {
    const { stack, front } = await stackBehind(untrusted);
    const warnLog = vi.spyOn(stack.als.log, 'warn');
    const { callback, traceId } = await lookUp(stack, '46730000004');
    expect(callback?.kind).toBe('error');
    expect(errorCodeOf(callback?.body ?? '')).toBe('1001');
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
    const metrics = await metricsOf(stack);
    expect(metrics).toMatch(
      /als_upstream_failures_total\{upstream="oracle",code="UNABLE_TO_VERIFY_LEAF_SIGNATURE"\} 1/,
    );
    expect(metrics).toMatch(/als_error_callbacks_total\{errorCode="1001",origin="hub",result="sent"\} 1/);
    expect(warnLog).toHaveBeenCalledWith(
      expect.objectContaining({
        upstream: 'oracle',
        origin: front.url,
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        err: expect.objectContaining({ message: expect.stringContaining('unable to verify') }),
      }),
      'upstream failed',
    );
    expect(front.state.handshakes).toBe(0);
  });

  // undici's sockets come from tls.connect without a `ca` unless ALS_UPSTREAM_CA_FILE is set: Node's default
  // store, which NODE_EXTRA_CA_CERTS extends when the process starts. A process of its own, as the variable
  // is read only then, with an undici Agent as the upstream pools make it.
  it('NODE_EXTRA_CA_CERTS is trusted by the upstream pools without ALS_UPSTREAM_CA_FILE', async () => {
    const { front } = await stackBehind(trusted);
    const script = `
      import { Agent, request } from 'undici';
      const dispatcher = new Agent({ connections: 1, connect: { timeout: 2000 } });
      const answer = await request(process.argv[1] + '/health', { dispatcher })
        .then((r) => r.body.text().then(() => r.statusCode), (e) => e.code);
      await dispatcher.close();
      console.log(answer);
    `;
    const run = (env: NodeJS.ProcessEnv) =>
      promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, front.url], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { PATH: process.env.PATH, ...env },
      });
    expect((await run({})).stdout.trim()).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect((await run({ NODE_EXTRA_CA_CERTS: trusted.caFile })).stdout.trim()).toMatch(/^\d{3}$/);
  });
});
