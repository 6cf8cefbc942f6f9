import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CallbackTimeoutError,
  endpointList,
  hashId,
  parseLatency,
  partyBody,
  startAdminSim,
  startOracleSim,
  startPayeeSim,
  startPayerSim,
} from '../src/index.js';

const closers: { close(): Promise<void> }[] = [];
function track<T extends { close(): Promise<void> }>(sim: T): T {
  closers.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await request(url);
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const traceparent = (traceId: string) => `00-${traceId}-0123456789abcdef-01`;

describe('admin simulator', () => {
  it('answers a participant in central-ledger shape and its callback endpoints', async () => {
    const admin = track(await startAdminSim({ fsps: 3, payeeUrl: 'http://payee:1', payerUrl: 'http://payer:2' }));
    const participant = await getJson(`${admin.url}/participants/payeefsp2`);
    expect(participant.status).toBe(200);
    expect(participant.body).toMatchObject({
      name: 'payeefsp2',
      id: `${admin.url}/participants/payeefsp2`,
      isActive: 1,
      accounts: expect.arrayContaining([expect.objectContaining({ currency: 'USD', ledgerAccountType: 'POSITION' })]),
    });
    const endpoints = await getJson(`${admin.url}/participants/payeefsp2/endpoints`);
    expect(endpoints.body).toEqual(endpointList('http://payee:1'));
    const payer = await getJson(`${admin.url}/participants/payerfsp/endpoints`);
    expect(payer.body).toContainEqual({
      type: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR',
      value: 'http://payer:2/parties/{{partyIdType}}/{{partyIdentifier}}/error',
    });
    expect((await getJson(`${admin.url}/participants/Hub`)).status).toBe(200);
    expect(admin.stats).toMatchObject({ participant: 2, endpoints: 2 });
  });

  it('answers an unknown participant name with 400 and error 3200', async () => {
    const admin = track(await startAdminSim({ fsps: 1 }));
    const res = await getJson(`${admin.url}/participants/nosuchfsp`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorInformation: { errorCode: '3200' } });
  });

  it('points the endpoints of a dead FSP at a port nobody listens on', async () => {
    const admin = track(await startAdminSim({ fsps: 2, payeeUrl: 'http://payee:1', deadEndpointFsps: ['payeefsp2'] }));
    const endpoints = (await getJson(`${admin.url}/participants/payeefsp2/endpoints`)).body as { value: string }[];
    const url = new URL((endpoints[0] as { value: string }).value.replace(/\{\{\w+\}\}/g, 'x'));
    await expect(request(url.origin)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('answers 500 for every request when the error rate is 1', async () => {
    const admin = track(await startAdminSim({ fsps: 1, faults: { errorRate: 1 } }));
    const res = await getJson(`${admin.url}/participants/payeefsp1`);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ errorInformation: { errorCode: '2001' } });
  });
});

describe('oracle simulator', () => {
  it('resolves any new ID to a generated payee FSP, and the not-found prefix to an empty list', async () => {
    const oracle = track(await startOracleSim({ fsps: 5 }));
    const id = '46701234567';
    expect((await getJson(`${oracle.url}/participants/MSISDN/${id}`)).body).toEqual({
      partyList: [{ fspId: `payeefsp${(hashId(id) % 5) + 1}` }],
    });
    expect((await getJson(`${oracle.url}/participants/MSISDN/40412345`)).body).toEqual({ partyList: [] });
    expect((await getJson(`${oracle.url}/participants/MSISDN/${id}/SUB`)).body).toEqual({
      partyList: [{ fspId: `payeefsp${(hashId(id) % 5) + 1}`, partySubIdOrType: 'SUB' }],
    });
  });

  it('lets POST override, DELETE remove and a batch POST register parties', async () => {
    const oracle = track(await startOracleSim({ fsps: 5 }));
    const post = await request(`${oracle.url}/participants/MSISDN/123`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fspId: 'otherfsp', currency: 'USD' }),
    });
    expect(post.statusCode).toBe(201);
    await post.body.dump();
    expect((await getJson(`${oracle.url}/participants/MSISDN/123`)).body).toEqual({
      partyList: [{ fspId: 'otherfsp', currency: 'USD' }],
    });
    expect((await getJson(`${oracle.url}/participants/MSISDN/123?currency=EUR`)).body).toEqual({ partyList: [] });
    const del = await request(`${oracle.url}/participants/MSISDN/123`, { method: 'DELETE' });
    expect(del.statusCode).toBe(204);
    await del.body.dump();
    expect((await getJson(`${oracle.url}/participants/MSISDN/123`)).body).toEqual({ partyList: [] });
    const batch = await request(`${oracle.url}/participants`, {
      method: 'POST',
      body: JSON.stringify({
        requestId: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
        partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '777', fspId: 'batchfsp' }],
      }),
    });
    expect(batch.statusCode).toBe(201);
    await batch.body.dump();
    expect(oracle.lookup('MSISDN', '777')).toEqual([{ fspId: 'batchfsp' }]);
  });

  it('answers a POST with a body that is not JSON with 400', async () => {
    const oracle = track(await startOracleSim());
    const res = await request(`${oracle.url}/participants/MSISDN/1`, { method: 'POST', body: '{nope' });
    expect(res.statusCode).toBe(400);
    await res.body.dump();
  });

  it('lets PUT give a party to the fspId of its body; a POST or PUT whose body is not JSON or names no fspId is 400 3101 and changes nothing', async () => {
    const oracle = track(await startOracleSim({ fsps: 0, parties: { 'MSISDN/5': [{ fspId: 'firstfsp' }] } }));
    const send = async (method: 'POST' | 'PUT', body: string) => {
      const res = await request(`${oracle.url}/participants/MSISDN/5`, { method, body });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    expect(await send('PUT', '{"fspId":"otherfsp","currency":"EUR"}')).toEqual({ status: 200, body: undefined });
    expect(oracle.lookup('MSISDN', '5')).toEqual([{ fspId: 'otherfsp', currency: 'EUR' }]);
    const notJson = {
      errorInformation: { errorCode: '3101', errorDescription: 'Malformed syntax - body is not JSON' },
    };
    const noFspId = {
      errorInformation: { errorCode: '3101', errorDescription: 'Malformed syntax - fspId is required' },
    };
    for (const method of ['POST', 'PUT'] as const) {
      expect(await send(method, '{"fspId":')).toEqual({ status: 400, body: notJson });
      expect(await send(method, '{"currency":"USD"}')).toEqual({ status: 400, body: noFspId });
      expect(await send(method, '{"fspId":7}')).toEqual({ status: 400, body: noFspId });
    }
    expect(oracle.lookup('MSISDN', '5')).toEqual([{ fspId: 'otherfsp', currency: 'EUR' }]);
  });

  it('answers a POST a delayed fault takes with 500 (2001) and registers nothing', async () => {
    const oracle = track(await startOracleSim({ fsps: 0, faults: { latencyMs: 50, errorRate: 1 } }));
    const res = await request(`${oracle.url}/participants/MSISDN/6`, { method: 'POST', body: '{"fspId":"newfsp"}' });
    expect(res.statusCode).toBe(500);
    expect(await res.body.json()).toMatchObject({ errorInformation: { errorCode: '2001' } });
    // The route never ran: it counts a POST before it reads the body.
    expect(oracle.stats.post).toBe(0);
    expect(oracle.lookup('MSISDN', '6')).toEqual([]);
  });

  it('resets the connection when the reset rate is 1', async () => {
    const oracle = track(await startOracleSim({ faults: { resetRate: 1 } }));
    await expect(request(`${oracle.url}/participants/MSISDN/1`)).rejects.toThrow();
  });

  it('waits the configured latency range before answering', async () => {
    // The range's low end, the bound checked below: no draw the test depends on (nothing to replay).
    const oracle = track(await startOracleSim({ faults: { latencyMs: [150, 200], random: () => 0 } }));
    const start = performance.now();
    expect((await getJson(`${oracle.url}/participants/MSISDN/1`)).status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(145);
  });
});

describe('payee and payer simulators', () => {
  const lookupHeaders = (traceId: string, accept: string) => ({
    accept,
    date: new Date().toUTCString(),
    'fspiop-source': 'payerfsp',
    'fspiop-destination': 'payeefsp3',
    traceparent: traceparent(traceId),
    tracestate: 'tx_end2end_start_ts=1700000000000',
  });

  it('answers GET /parties with 202 and PUTs the party back with rewritten headers', async () => {
    // The payer simulator stands in for the ALS here: it records what the payee calls back with.
    const als = track(await startPayerSim({ recordHistory: true }));
    const payee = track(await startPayeeSim({ alsUrl: als.url }));
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await request(`${payee.url}/parties/MSISDN/46701234567`, {
      headers: lookupHeaders(traceId, 'application/vnd.interoperability.parties+json;version=1.1'),
    });
    expect(res.statusCode).toBe(202);
    await res.body.dump();
    const callback = await als.waitForCallback(traceId, 5_000);
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/parties/MSISDN/46701234567');
    expect(callback.headers['fspiop-source']).toBe('payeefsp3');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(callback.headers['content-type']).toBe('application/vnd.interoperability.parties+json;version=1.1');
    expect(callback.headers.traceparent).toBe(traceparent(traceId));
    expect(callback.headers.tracestate).toMatch(/^tx_end2end_start_ts=1700000000000,tx_callback_start_ts=\d+$/);
    expect(JSON.parse(callback.body.toString())).toMatchObject({
      party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '46701234567', fspId: 'payeefsp3' } },
    });
  });

  it('answers in version 2.0 when asked, and with PUT .../error for the error prefix', async () => {
    const als = track(await startPayerSim());
    const payee = track(await startPayeeSim({ alsUrl: als.url, errorPrefix: '999' }));
    const v2 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    await (
      await request(`${payee.url}/parties/MSISDN/1/SUB`, {
        headers: lookupHeaders(v2, 'application/vnd.interoperability.parties+json;version=2'),
      })
    ).body.dump();
    const callback = await als.waitForCallback(v2, 5_000);
    expect(callback.path).toBe('/parties/MSISDN/1/SUB');
    expect(callback.headers['content-type']).toContain('version=2.0');
    expect(JSON.parse(callback.body.toString()).party.supportedCurrencies).toEqual(['USD']);
    const failing = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    await (
      await request(`${payee.url}/parties/MSISDN/9991`, {
        headers: lookupHeaders(failing, 'application/vnd.interoperability.parties+json;version=1'),
      })
    ).body.dump();
    const error = await als.waitForCallback(failing, 5_000);
    expect(error.kind).toBe('error');
    expect(error.path).toBe('/parties/MSISDN/9991/error');
    expect(JSON.parse(error.body.toString())).toMatchObject({ errorInformation: { errorCode: '3204' } });
  });

  it('keys callbacks by party with keyBy party, whatever trace id a switch put on them', async () => {
    const als = track(await startPayerSim({ keyBy: 'party' }));
    const payee = track(await startPayeeSim({ alsUrl: als.url, errorPrefix: '999' }));
    for (const id of ['46700000001', '9990001']) {
      await (
        await request(`${payee.url}/parties/MSISDN/${id}`, {
          headers: lookupHeaders(
            'cccccccccccccccccccccccccccccccc',
            'application/vnd.interoperability.parties+json;version=1.1',
          ),
        })
      ).body.dump();
    }
    expect((await als.waitForCallback('MSISDN/46700000001', 5_000)).kind).toBe('success');
    expect((await als.waitForCallback('MSISDN/9990001', 5_000)).kind).toBe('error');
  });

  it('writes a party body that is the JSON of the party, with quotes and a percent-encoded ID decoded', async () => {
    const als = track(await startPayerSim({ recordHistory: true }));
    const payee = track(await startPayeeSim({ alsUrl: als.url }));
    const traceId = '11111111111111111111111111111111';
    await (
      await request(`${payee.url}/parties/ALIAS/${encodeURIComponent('a "b"/c')}/SUB`, {
        headers: lookupHeaders(traceId, 'application/vnd.interoperability.parties+json;version=2.0'),
      })
    ).body.dump();
    const callback = await als.waitForCallback(traceId, 5_000);
    expect(JSON.parse(callback.body.toString())).toEqual({
      party: {
        partyIdInfo: { partyIdType: 'ALIAS', partyIdentifier: 'a "b"/c', partySubIdOrType: 'SUB', fspId: 'payeefsp3' },
        name: 'Mats Hagman',
        personalInfo: { complexName: { firstName: 'Mats', lastName: 'Hagman' }, dateOfBirth: '1983-10-25' },
        supportedCurrencies: ['USD'],
      },
    });
    expect(JSON.parse(partyBody('MSISDN', '1', undefined, 'x', '1.1'))).toEqual({
      party: {
        partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'x' },
        name: 'Mats Hagman',
        personalInfo: { complexName: { firstName: 'Mats', lastName: 'Hagman' }, dateOfBirth: '1983-10-25' },
      },
    });
  });

  it('answers a PUT callback without Content-Length (no body headers at all) and delivers it with an empty body', async () => {
    const payer = track(await startPayerSim());
    const traceId = '22222222222222222222222222222222';
    const socket = connect(payer.port, '127.0.0.1');
    socket.write(`PUT /parties/MSISDN/5 HTTP/1.1\r\nhost: x\r\ntraceparent: ${traceparent(traceId)}\r\n\r\n`);
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    socket.destroy();
    expect(chunk.toString()).toMatch(/^HTTP\/1\.1 200 /);
    const callback = await payer.waitForCallback(traceId, 5_000);
    expect(callback.kind).toBe('success');
    expect(callback.body.length).toBe(0);
  });

  it('never calls back a dropped lookup', async () => {
    const als = track(await startPayerSim());
    const payee = track(await startPayeeSim({ alsUrl: als.url, dropRate: 1 }));
    const traceId = 'cccccccccccccccccccccccccccccccc';
    const res = await request(`${payee.url}/parties/MSISDN/1`, { headers: lookupHeaders(traceId, 'application/json') });
    expect(res.statusCode).toBe(202);
    await res.body.dump();
    await expect(als.waitForCallback(traceId, 300)).rejects.toBeInstanceOf(CallbackTimeoutError);
    expect(payee.stats.dropped).toBe(1);
  });

  it('delivers a callback to a long-poll client, also one that arrived before the poll', async () => {
    const payer = track(await startPayerSim());
    const traceId = 'dddddddddddddddddddddddddddddddd';
    const poll = getJson(`${payer.url}/callbacks/${traceId}?timeoutMs=5000`);
    const put = await request(`${payer.url}/parties/MSISDN/1/error`, {
      method: 'PUT',
      headers: { traceparent: traceparent(traceId), 'content-type': 'application/json' },
      body: '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found"}}',
    });
    expect(put.statusCode).toBe(200);
    await put.body.dump();
    const answer = (await poll).body as { kind: string; body: string };
    expect(answer.kind).toBe('error');
    expect(JSON.parse(answer.body).errorInformation.errorCode).toBe('3204');

    const early = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    await (
      await request(`${payer.url}/parties/MSISDN/2`, {
        method: 'PUT',
        headers: { traceparent: traceparent(early) },
        body: '{}',
      })
    ).body.dump();
    expect(((await getJson(`${payer.url}/callbacks/${early}?timeoutMs=1000`)).body as { kind: string }).kind).toBe(
      'success',
    );
    expect((await getJson(`${payer.url}/callbacks/ffffffffffffffffffffffffffffffff?timeoutMs=100`)).status).toBe(504);
  });

  it('answers a callback a delayed fault takes with 500 (2001) and delivers nothing; one it only delays is delivered', async () => {
    const failing = track(await startPayerSim({ faults: { latencyMs: 50, errorRate: 1 } }));
    const failedTrace = '33333333333333333333333333333333';
    const res = await request(`${failing.url}/parties/MSISDN/1`, {
      method: 'PUT',
      headers: { traceparent: traceparent(failedTrace), 'content-type': 'application/json' },
      body: '{"party":{}}',
    });
    expect(res.statusCode).toBe(500);
    expect(((await res.body.json()) as { errorInformation: { errorCode: string } }).errorInformation.errorCode).toBe(
      '2001',
    );
    expect(failing.stats.callbacks).toBe(0);
    await expect(failing.waitForCallback(failedTrace, 100)).rejects.toBeInstanceOf(CallbackTimeoutError);

    const slow = track(await startPayerSim({ faults: { latencyMs: 50 } }));
    const slowTrace = '44444444444444444444444444444444';
    const put = await request(`${slow.url}/parties/MSISDN/1`, {
      method: 'PUT',
      headers: { traceparent: traceparent(slowTrace), 'content-type': 'application/json' },
      body: '{"party":{}}',
    });
    expect(put.statusCode).toBe(200);
    await put.body.dump();
    expect((await slow.waitForCallback(slowTrace, 5_000)).body.toString()).toBe('{"party":{}}');
  });

  it('applies faults per FSP: only the slow FSP waits', async () => {
    const als = track(await startPayerSim());
    const payee = track(await startPayeeSim({ alsUrl: als.url, fspFaults: { slowfsp: { latencyMs: 2_000 } } }));
    const start = performance.now();
    const res = await request(`${payee.url}/parties/MSISDN/1`, {
      headers: { ...lookupHeaders('1'.repeat(32), 'application/json'), 'fspiop-destination': 'fastfsp' },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(202);
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});

describe('fault options', () => {
  it('parses a fixed latency and a range, and rejects anything else', () => {
    expect(parseLatency('250')).toBe(250);
    expect(parseLatency('3500-7000')).toEqual([3500, 7000]);
    expect(() => parseLatency('7000-3500')).toThrow(/min is greater than max/);
    expect(() => parseLatency('slow')).toThrow(/neither/);
  });
});

describe('sim CLI', () => {
  it('prints one ready line with the URLs, and stops on SIGTERM', async () => {
    // The shipped artefact is dist/sim.js, built by the vitest global setup (testkit build-setup).
    const script = fileURLToPath(new URL('../dist/sim.js', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    const participantsFile = join(dir, 'participants.json');
    writeFileSync(
      participantsFile,
      JSON.stringify({ extrafsp: { endpointBase: 'http://127.0.0.1:9', currencies: ['TZS'] } }),
    );
    const child = spawn(process.execPath, [script, '--fsps', '3', '--participants-file', participantsFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SIM_ALS_URL: 'http://127.0.0.1:9' },
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      child.once('exit', (code) => reject(new Error(`sim exited with ${code}`)));
    });
    const ready = JSON.parse(line) as Record<string, unknown>;
    expect(ready).toMatchObject({ ready: true });
    expect((await getJson(`${ready.admin}/participants/payeefsp3`)).status).toBe(200);
    expect((await getJson(`${ready.admin}/participants/payeefsp4`)).status).toBe(400);
    expect((await getJson(`${ready.admin}/participants/extrafsp`)).body).toMatchObject({
      accounts: expect.arrayContaining([expect.objectContaining({ currency: 'TZS' })]),
    });
    rmSync(dir, { recursive: true, force: true });
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});

describe('bind address and advertised host', () => {
  it('listens where told and hands out URLs with the advertised host (a cluster Service name)', async () => {
    const admin = await startAdminSim({
      port: 0,
      fsps: 1,
      payeeUrl: 'http://payee.example:4040',
      bind: { host: '0.0.0.0', publicHost: 'sim.mojaloop.svc' },
    });
    try {
      expect(admin.url).toMatch(/^http:\/\/sim\.mojaloop\.svc:\d+$/);
      // Reached on loopback through the wildcard bind.
      const response = await fetch(`http://127.0.0.1:${admin.port}/participants/payeefsp1/endpoints`);
      expect(response.status).toBe(200);
      const endpoints = (await response.json()) as { type: string; value: string }[];
      expect(endpoints.some((e) => e.value.startsWith('http://payee.example:4040'))).toBe(true);
    } finally {
      await admin.close();
    }
  });

  it('advertises loopback when bound to every interface without a public host', async () => {
    const payer = await startPayerSim({ port: 0, bind: { host: '0.0.0.0' } });
    try {
      expect(payer.url).toBe(`http://127.0.0.1:${payer.port}`);
    } finally {
      await payer.close();
    }
  });
});
