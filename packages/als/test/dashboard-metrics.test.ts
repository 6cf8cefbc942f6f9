import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDashboardFixture, prometheusSamples as samples } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../src/config/original.js';
import { call, callbackHeaders, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

// The metric names the community dashboards query for the ALS (fixtures/dashboard-metrics.json, a fact
// list taken from mojaloop/helm's dashboards), each expected on the real /metrics of a running ALS after
// one request of every route, with the labels the queries select on.
// serviceVersion: the ALS package's version, as the original sets its own package version there.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const versionPattern = version.replaceAll('.', '\\.');
const metricLine = (pattern: string) => new RegExp(pattern, 'm');
const fixture = readDashboardFixture(new URL('./fixtures/dashboard-metrics.json', import.meta.url));

const missing = (text: string) => {
  const page = samples(text);
  return fixture.covered
    .filter((entry) => !page.get(entry.name)?.some((labels) => entry.labels.every((l) => labels.includes(`${l}="`))))
    .map((entry) => entry.name);
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const participants = 'participants' as const;
const json = (resource: 'parties' | 'participants') => ({
  'content-type': `application/vnd.interoperability.${resource}+json;version=1.1`,
});

describe('dashboard metrics on /metrics', () => {
  it('lists dashboard names only once and never one it also calls uncovered', () => {
    const covered = new Set(fixture.covered.map((e) => `${e.name} ${e.dashboard}`));
    expect(covered.size).toBe(fixture.covered.length);
    const names = new Set(fixture.covered.map((e) => e.name));
    for (const entry of fixture.notCovered) expect(names.has(entry.name)).toBe(false);
  });

  it('exports every name the dashboards query after one request of each route', async () => {
    const base = stack.als.url;
    const errorBody = '{"errorInformation":{"errorCode":"5100","errorDescription":"Payee rejected"}}';
    const accepted: [string, 'GET' | 'PUT' | 'POST' | 'DELETE', Record<string, string>, string | undefined, number][] =
      [];
    for (const sub of ['', '/WALLET']) {
      const id = sub ? '46730000092' : '46730000091';
      accepted.push(
        [`/parties/MSISDN/${id}${sub}`, 'GET', lookupHeaders(newTraceId()), undefined, 202],
        [
          `/parties/MSISDN/${id}${sub}`,
          'PUT',
          callbackHeaders(newTraceId()),
          `{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"${id}"}}}`,
          200,
        ],
        [`/parties/MSISDN/${id}${sub}/error`, 'PUT', callbackHeaders(newTraceId()), errorBody, 200],
        [`/participants/MSISDN/${id}${sub}`, 'GET', lookupHeaders(newTraceId(), {}, participants), undefined, 202],
        [
          `/participants/MSISDN/${id}${sub}`,
          'POST',
          { ...lookupHeaders(newTraceId(), {}, participants), ...json(participants) },
          '{"fspId":"payerfsp"}',
          202,
        ],
        [
          `/participants/MSISDN/${id}${sub}`,
          'PUT',
          { ...callbackHeaders(newTraceId(), { 'fspiop-source': 'payerfsp' }, participants) },
          '{"fspId":"payerfsp"}',
          200,
        ],
        [`/participants/MSISDN/${id}${sub}`, 'DELETE', lookupHeaders(newTraceId(), {}, participants), undefined, 202],
        [
          `/participants/MSISDN/${id}${sub}/error`,
          'PUT',
          callbackHeaders(newTraceId(), {}, participants),
          errorBody,
          200,
        ],
      );
    }
    accepted.push([
      '/participants',
      'POST',
      { ...lookupHeaders(newTraceId(), {}, participants), ...json(participants) },
      JSON.stringify({
        requestId: randomUUID(),
        partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000093', fspId: 'payerfsp' }],
        currency: 'USD',
      }),
      200,
    ]);
    for (const [path, method, headers, body, status] of accepted) {
      if (method === 'PUT') delete headers.accept;
      const res = await call(`${base}${path}`, method, headers, body);
      expect({ path, method, status: res.status, body: res.body }).toMatchObject({ path, method, status });
    }
    // The domain histograms are observed when each flow ends (its callback sent), after the answer.
    await vi.waitFor(
      async () => {
        const text = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
        expect(missing(text)).toEqual([]);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('gives the original ingress histograms success="true" and serviceName beside our own metrics', async () => {
    const text = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
    expect(text).toMatch(
      metricLine(
        String.raw`^moja_als_ing_getPartiesByTypeAndID_count\{success="true",serviceName="account-lookup-service",serviceVersion="${versionPattern}"\} [1-9]`,
      ),
    );
    expect(text).toMatch(/^moja_als_ing_getPartiesByTypeIDAndSubID_count\{[^}]*\} [1-9]/m);
    expect(text).toMatch(/^als_requests_total\{route="parties_get",status="202"\} [1-9]/m);
  });

  it('gives the egress histograms the original labels and counts them (participantEndpoint/facade.js)', async () => {
    const text = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
    // The lookups above resolved payeefsp's parties GET endpoint and sent it the request; the callbacks went
    // to payerfsp's parties PUT endpoint.
    expect(text).toMatch(
      metricLine(
        String.raw`^moja_als_egress_getParticipantEndpoint_count\{success="true",endpointType="FSPIOP_CALLBACK_URL_PARTIES_GET",participantName="[^"]+",serviceName="account-lookup-service",serviceVersion="${versionPattern}"\} [1-9]`,
      ),
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^moja_als_egress_sendRequestToParticipant_count\{success="true",endpointType="FSPIOP_CALLBACK_URL_PARTIES_PUT",participantName="payerfsp",serviceName="account-lookup-service",serviceVersion="${versionPattern}"\} [1-9]`,
      ),
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^moja_als_egress_validateParticipant_count\{success="true",serviceName="account-lookup-service",serviceVersion="${versionPattern}"\} [1-9]`,
      ),
    );
  });

  it('records a lookup that ends in the ALS error callback as success="false" (the original domain timer)', async () => {
    // Bad input: a party the oracle does not know (the simulator's 404 prefix); the ALS answers 3204.
    const traceId = newTraceId();
    const res = await call(`${stack.als.url}/parties/MSISDN/40400091`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('error');
    await vi.waitFor(async () => {
      const text = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
      expect(text).toMatch(
        metricLine(
          String.raw`^moja_als_getPartiesByTypeAndID_count\{success="false",serviceName="account-lookup-service",serviceVersion="${versionPattern}"\} 1$`,
        ),
      );
    });
  });
});

/**
 * A deployment's account-lookup-service file with its own INSTRUMENTATION.METRICS, read as at start (the
 * file then our mapping), and an ALS started on the settings it gives; its /metrics after one lookup.
 */
async function metricsWith(instrumentation: unknown, ready: RegExp): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'als-instrumentation-'));
  const file = join(dir, 'default.json');
  writeFileSync(file, JSON.stringify({ INSTRUMENTATION: { METRICS: instrumentation } }));
  const { config, notHonoured } = readConfig({ CONFIG_FILE: file });
  rmSync(dir, { recursive: true });
  expect(notHonoured).toEqual([]);
  const { originalMetrics, metricsPrefix, metricsDefaultLabels } = config;
  const own = await startStack({ config: { originalMetrics, metricsPrefix, metricsDefaultLabels } });
  try {
    const traceId = newTraceId();
    const res = await call(`${own.als.url}/parties/MSISDN/46730000101`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    await own.sims.payer?.waitForCallback(traceId, 5_000);
    return await vi.waitFor(
      async () => {
        const text = await (await fetch(`${own.als.adminUrl}/metrics`)).text();
        // The flow's end is recorded before the page is read.
        expect(text).toMatch(ready);
        return text;
      },
      { timeout: 10_000, interval: 100 },
    );
  } finally {
    await own.close();
  }
}

describe("the original's INSTRUMENTATION.METRICS keys on /metrics", () => {
  it("puts a file's prefix and every default label on the original names, and no moja_als_ name", async () => {
    const text = await metricsWith(
      {
        DISABLED: false,
        labels: { fspId: '*' },
        config: { timeout: 5000, prefix: 'eu_als_', defaultLabels: { serviceName: 'als-eu', region: 'eu-1' } },
      },
      /^eu_als_getPartiesByTypeAndID_count\{[^}]*\} 1$/m,
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^eu_als_ing_getPartiesByTypeAndID_count\{success="true",serviceName="als-eu",region="eu-1",serviceVersion="${versionPattern}"\} 1$`,
      ),
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^eu_als_getPartiesByTypeAndID_count\{success="true",serviceName="als-eu",region="eu-1",serviceVersion="${versionPattern}"\} 1$`,
      ),
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^eu_als_process_cpu_user_seconds_total\{serviceName="als-eu",region="eu-1",serviceVersion="${versionPattern}"\} `,
      ),
    );
    expect(text).not.toMatch(/^moja_als_/m);
    expect(text).toMatch(/^als_requests_total\{route="parties_get",status="202"\} 1$/m);
  });

  it("sets serviceVersion to this ALS's version over a file's own, as the original sets its package version", async () => {
    const text = await metricsWith(
      { DISABLED: false, config: { prefix: 'v_als_', defaultLabels: { serviceName: 'als', serviceVersion: '1.2.3' } } },
      /^v_als_getPartiesByTypeAndID_count\{[^}]*\} 1$/m,
    );
    expect(text).toMatch(
      metricLine(
        String.raw`^v_als_ing_getPartiesByTypeAndID_count\{success="true",serviceName="als",serviceVersion="${versionPattern}"\} 1$`,
      ),
    );
    expect(text).not.toContain('1.2.3');
  });

  it('exports none of the original names when the file says DISABLED: true, and keeps ours', async () => {
    const text = await metricsWith(
      { DISABLED: true, config: { prefix: 'moja_als_' } },
      /^als_events_total\{event="callback_forwarded"\} [1-9]/m,
    );
    expect(text).not.toMatch(/^moja_als_/m);
    expect(text).toMatch(/^als_requests_total\{route="parties_get",status="202"\} 1$/m);
    expect(text).toMatch(/^als_process_cpu_user_seconds_total /m);
  });
});
