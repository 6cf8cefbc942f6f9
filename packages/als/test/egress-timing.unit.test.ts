import { describe, expect, it } from 'vitest';
import type { OutboundRequest, Participant } from '../src/discovery/types.js';
import { UpstreamError } from '../src/discovery/types.js';
import { type EgressTimer, timedDirectory, timedEgress } from '../src/upstream/egress-timing.js';

// The original's egress timers, taken at the upstream edge: which step, which labels, success or not.

function recorder() {
  const calls: [string, string, string, boolean][] = [];
  const timer: EgressTimer = (step, endpointType, participant, ok, seconds) => {
    expect(seconds).toBeGreaterThanOrEqual(0);
    calls.push([step, endpointType, participant, ok]);
  };
  return { calls, timer };
}

const payer: Participant = { name: 'payerfsp', isActive: true, currencies: [] };

describe('timedDirectory', () => {
  const source = {
    participant: async (name: string) => {
      if (name === 'down') throw new UpstreamError('central-ledger', 'down');
      return name === 'payerfsp' ? payer : undefined;
    },
    endpoints: async (name: string) => {
      if (name === 'down') throw new UpstreamError('central-ledger', 'down');
      return new Map([['FSPIOP_CALLBACK_URL_PARTIES_GET', `http://${name}`]]);
    },
  };

  it('times every participant check: found, unknown, failed', async () => {
    const { calls, timer } = recorder();
    const directory = timedDirectory(source, timer);
    expect(await directory.participant('payerfsp')).toBe(payer);
    expect(await directory.participant('nobody')).toBeUndefined();
    await expect(directory.participant('down')).rejects.toThrow(UpstreamError);
    expect(calls).toEqual([
      ['validateParticipant', '', '', true],
      ['validateParticipant', '', '', false],
      ['validateParticipant', '', '', false],
    ]);
  });

  it('times an endpoint look-up with its type and participant; the whole map is not timed', async () => {
    const { calls, timer } = recorder();
    const directory = timedDirectory(source, timer);
    expect(await directory.endpoint('payeefsp', 'FSPIOP_CALLBACK_URL_PARTIES_GET')).toBe('http://payeefsp');
    expect(await directory.endpoint('payeefsp', 'FSPIOP_CALLBACK_URL_PARTIES_PUT')).toBeUndefined();
    await expect(directory.endpoint('down', 'FSPIOP_CALLBACK_URL_PARTIES_PUT')).rejects.toThrow(UpstreamError);
    expect((await directory.endpoints('payeefsp')).size).toBe(1);
    expect(calls).toEqual([
      ['getParticipantEndpoint', 'FSPIOP_CALLBACK_URL_PARTIES_GET', 'payeefsp', true],
      ['getParticipantEndpoint', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'payeefsp', false],
      ['getParticipantEndpoint', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'down', false],
    ]);
  });
});

describe('timedDirectory with answers the caches held', () => {
  it('passes them on synchronously, timed 0 s without reading the clock', () => {
    const seconds: number[] = [];
    const directory = timedDirectory(
      {
        participant: (name) => (name === 'payerfsp' ? payer : undefined),
        endpoints: () => new Map([['FSPIOP_CALLBACK_URL_PARTIES_GET', 'http://payerfsp']]),
      },
      (_step, _type, _participant, _ok, taken) => seconds.push(taken),
    );
    expect(directory.participant('payerfsp')).toBe(payer);
    expect(directory.endpoint('payerfsp', 'FSPIOP_CALLBACK_URL_PARTIES_GET')).toBe('http://payerfsp');
    expect(seconds).toEqual([0, 0]);
  });
});

describe('timedEgress', () => {
  const request = (participant?: string): OutboundRequest => ({
    url: 'http://x',
    method: 'PUT',
    headers: {},
    ...(participant === undefined ? {} : { participant, endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT' }),
  });

  it('times a send to a participant, sent or failed (thrown at once or later)', async () => {
    const { calls, timer } = recorder();
    // The send tells its end as the HTTP client does (SettlingSend): before its promise settles.
    const egress = timedEgress(async (r, settled) => {
      settled?.(r.participant !== 'down');
      if (r.participant === 'down') throw new UpstreamError('fsp', 'answered 500', 500);
    }, timer);
    await egress.send(request('payeefsp'));
    await expect(egress.send(request('down'))).rejects.toThrow(UpstreamError);
    const throwing = timedEgress(() => {
      throw new Error('sync');
    }, timer);
    await expect(throwing.send(request('payerfsp'))).rejects.toThrow('sync');
    expect(calls).toEqual([
      ['sendRequestToParticipant', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'payeefsp', true],
      ['sendRequestToParticipant', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'down', false],
      ['sendRequestToParticipant', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'payerfsp', false],
    ]);
  });

  it('does not time a request that names no participant', async () => {
    const { calls, timer } = recorder();
    await timedEgress(async () => {}, timer).send(request());
    expect(calls).toEqual([]);
  });
});
