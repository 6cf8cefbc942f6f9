import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { buildFakeAls, type FakeAls, sentFor } from './fake-app.js';
import { callbackHeaders, lookupHeaders, newTraceId } from './helpers.js';

// What the routes do with how a flow ended (its FlowOutcome), over fake ports: whether a lookup keeps its
// admission slot, and the success label of the original's domain histogram. Each test has an app of its own,
// so the counts start at 0.
let als: FakeAls | undefined;
const app = () => als as FakeAls;
beforeEach(async () => {
  await als?.close();
  als = buildFakeAls({ originalMetrics: true });
});
afterAll(() => als?.close());

async function inFlight(): Promise<number> {
  const gauge = app().registry.getSingleMetric('als_lookups_in_flight');
  const values = (await gauge?.get())?.values ?? [];
  return values.find((v) => v.labels.state === 'in_flight')?.value ?? Number.NaN;
}

/** The count of the original's domain histogram `id` with success `success` (0 when it has no such line). */
async function domainCount(id: string, success: boolean): Promise<number> {
  const text = await app().registry.metrics();
  const line = new RegExp(String.raw`^moja_als_${id}_count\{success="${success}"[^}]*\} (\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

const missing = () => app().world.events.filter((event) => event === 'callback_missing').length;
const party = '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"46770001111","fspId":"payeefsp1"}}}';

describe('a flow outcome, as the routes read it', () => {
  it('a forwarded lookup holds its slot until the payee calls back; both flows succeed', async () => {
    app().world.oracle.set('MSISDN/46770001111', [{ fspId: 'payeefsp1' }]);
    const traceId = newTraceId();
    const get = await app().app.inject({
      method: 'GET',
      url: '/parties/MSISDN/46770001111',
      headers: lookupHeaders(traceId),
    });
    expect(get.statusCode).toBe(202);
    expect((await sentFor(app(), traceId)).map((sent) => sent.participant)).toEqual(['payeefsp1']);
    expect(await inFlight()).toBe(1);
    expect(await domainCount('getPartiesByTypeAndID', true)).toBe(1);

    const put = await app().app.inject({
      method: 'PUT',
      url: '/parties/MSISDN/46770001111',
      headers: callbackHeaders(traceId),
      payload: party,
    });
    expect(put.statusCode).toBe(200);
    await app().inflight.idle();
    expect(app().world.sent.at(-1)?.participant).toBe('payerfsp');
    expect(await inFlight()).toBe(0);
    expect(await domainCount('putPartiesByTypeAndID', true)).toBe(1);
    expect(missing()).toBe(0);
  });

  it('a lookup that ends in the ALS error callback frees its slot at once and failed', async () => {
    const traceId = newTraceId();
    const get = await app().app.inject({
      method: 'GET',
      url: '/parties/MSISDN/46770002222',
      headers: lookupHeaders(traceId),
    });
    expect(get.statusCode).toBe(202);
    const sent = await sentFor(app(), traceId);
    expect(sent.map((s) => s.endpointType)).toEqual(['FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR']);
    expect(await inFlight()).toBe(0);
    expect(await domainCount('getPartiesByTypeAndID', false)).toBe(1);
    expect(await domainCount('getPartiesByTypeAndID', true)).toBe(0);
    expect(missing()).toBe(0);
  });

  it('a callback from an unknown source is dropped: nothing sent, nothing made good, not failed', async () => {
    const traceId = newTraceId();
    const put = await app().app.inject({
      method: 'PUT',
      url: '/parties/MSISDN/46770001111',
      headers: callbackHeaders(traceId, { 'fspiop-source': 'strangerfsp' }),
      payload: party,
    });
    expect(put.statusCode).toBe(200);
    expect(await sentFor(app(), traceId)).toEqual([]);
    expect(app().world.events).toEqual(['unknown_source']);
    expect(await domainCount('putPartiesByTypeAndID', true)).toBe(1);
  });

  it('a batch whose answer cannot be delivered failed, and is not made good', async () => {
    app().world.unreachable.add('payerfsp');
    const traceId = newTraceId();
    const res = await app().app.inject({
      method: 'POST',
      url: '/participants',
      headers: lookupHeaders(traceId, {}, 'participants'),
      payload: JSON.stringify({
        requestId: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
        partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46760003333', fspId: 'payerfsp' }],
      }),
    });
    expect(res.statusCode).toBe(200);
    expect((await sentFor(app(), traceId)).map((s) => s.endpointType)).toEqual([
      'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT',
    ]);
    expect(app().world.events).toEqual(['error_callback_failed']);
    expect(await domainCount('postParticipantsBatch', false)).toBe(1);
    expect(missing()).toBe(0);
  });
});
