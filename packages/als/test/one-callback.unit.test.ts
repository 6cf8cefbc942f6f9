import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FlowOutcome } from '../src/discovery/outcome.js';
import * as participants from '../src/discovery/participants.js';
import * as parties from '../src/discovery/parties.js';
import { buildFakeAls, type FakeAls, sentFor } from './fake-app.js';
import { lookupHeaders, newTraceId } from './helpers.js';

// The routes' guarantee, over fake ports: a flow that throws or resolves to no outcome still ends
// in one callback. The flows are the real ones; a test makes one of them fail once (the only mocks here).
// What each malformed upstream answer becomes goes through the real clients: one-callback.test.ts.
vi.mock('../src/discovery/parties.js', async (original) => {
  const real = await original<typeof import('../src/discovery/parties.js')>();
  return { ...real, lookUpParty: vi.fn(real.lookUpParty) };
});
vi.mock('../src/discovery/participants.js', async (original) => {
  const real = await original<typeof import('../src/discovery/participants.js')>();
  return { ...real, handleBatch: vi.fn(real.handleBatch) };
});

const requestId = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
let als: FakeAls;
beforeAll(() => {
  als = buildFakeAls();
});
afterAll(() => als?.close());

const errorOf = (body: string | Buffer | undefined) => JSON.parse(body?.toString() ?? '{}').errorInformation;

/** The flows' events go to the world's observe port (main.ts wires it to als_events_total). */
const callbackMissing = () => als.world.events.filter((event) => event === 'callback_missing').length;

describe('every accepted request ends in exactly one callback (fake ports)', () => {
  it('makes good a flow that throws: one 2001 error callback, counted as callback_missing', async () => {
    vi.mocked(participants.handleBatch).mockRejectedValueOnce(new Error('injected failure'));
    const traceId = newTraceId();
    const res = await als.app.inject({
      method: 'POST',
      url: '/participants',
      headers: lookupHeaders(traceId, {}, 'participants'),
      payload: JSON.stringify({
        requestId,
        partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46760009999', fspId: 'payerfsp' }],
      }),
    });
    expect(res.statusCode).toBe(200);
    const callbacks = await sentFor(als, traceId);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]?.url).toBe(`http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR/${requestId}`);
    expect(errorOf(callbacks[0]?.body)).toEqual({ errorCode: '2001', errorDescription: 'Internal server error' });
    expect(callbackMissing()).toBe(1);
  });

  it('makes good a flow that resolves to no outcome: one 2001 error callback', async () => {
    // Only plain JavaScript or a cast can get past the flow's type to do this.
    vi.mocked(parties.lookUpParty).mockResolvedValueOnce(undefined as unknown as FlowOutcome);
    const traceId = newTraceId();
    const res = await als.app.inject({
      method: 'GET',
      url: '/parties/MSISDN/46770009999',
      headers: lookupHeaders(traceId),
    });
    expect(res.statusCode).toBe(202);
    const callbacks = await sentFor(als, traceId);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]?.url).toBe('http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR/MSISDN/46770009999');
    expect(errorOf(callbacks[0]?.body).errorCode).toBe('2001');
    expect(callbackMissing()).toBe(2);
  });
});
