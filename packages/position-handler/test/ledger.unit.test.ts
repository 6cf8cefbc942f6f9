import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount } from '../src/ledger/amount.js';
import { planBatch } from '../src/ledger/plan.js';
import type { AccountFacts, LedgerCommand, StateRecord, TransferFacts } from '../src/ledger/types.js';
import { decodePayload } from '../src/messages/decode.js';

const account = (over: Partial<AccountFacts> = {}): AccountFacts => ({
  participantCurrencyId: '3',
  participantPositionId: '30',
  value: 0n,
  reservedValue: 0n,
  netDebitCap: parseAmount('1000'),
  liquidityCover: parseAmount('1000'),
  ...over,
});
const history = (...states: string[]): StateRecord[] =>
  states.map((transferStateId) => ({ transferStateId, reason: null }));
const prepare = (seq: number, amount = '10'): LedgerCommand => ({
  seq,
  action: 'prepare',
  transferId: `t${seq}`,
  accountId: '3',
  amount: parseAmount(amount),
});

describe('amounts (DECIMAL(18,4) as scaled BigInt)', () => {
  it('parses and formats exactly, where binary floating point would drift', () => {
    expect(formatAmount(parseAmount('0.1') + parseAmount('0.2'))).toBe('0.3000');
    expect(formatAmount(parseAmount('-25.5'))).toBe('-25.5000');
    expect(formatAmount(parseAmount('99999999999999.9999') - parseAmount('0.0001'))).toBe('99999999999999.9998');
    expect(parseAmount('10.0000')).toBe(100000n);
  });

  it('rejects amounts with more than four decimals, exponents or text', () => {
    for (const bad of ['1.23456', '1e3', 'ten', '', '1.2.3']) expect(() => parseAmount(bad)).toThrow(/DECIMAL/);
  });
});

describe('planBatch', () => {
  it('shrinks the net debit cap headroom inside one batch: headroom 25, ten prepares of 10 → two RESERVED, eight 4200', () => {
    const commands = Array.from({ length: 10 }, (_, i) => prepare(i));
    const transfers = new Map<string, TransferFacts>(
      commands.map((c) => [c.transferId, { history: history('RECEIVED_PREPARE'), payeeAmount: undefined }]),
    );
    const result = planBatch({
      commands,
      accounts: new Map([['3', account({ netDebitCap: parseAmount('25') })]]),
      transfers,
    });
    expect(result.outcomes.filter((o) => o.result === 'applied')).toHaveLength(2);
    const rejected = result.outcomes.filter((o) => o.result === 'rejected');
    expect(rejected).toHaveLength(8);
    expect(rejected.every((o) => o.error?.name === 'LIMIT')).toBe(true);
    expect(result.positionUpdates).toEqual([{ participantPositionId: '30', value: parseAmount('20') }]);
    expect(result.positionChanges.map((c) => formatAmount(c.value))).toEqual(['10.0000', '20.0000']);
    expect(result.stateChanges.filter((s) => s.transferStateId === 'ABORTED_REJECTED')).toHaveLength(8);
  });

  it('checks liquidity before the limit (4001 before 4200), on value + reservedValue', () => {
    const result = planBatch({
      commands: [prepare(0, '10')],
      accounts: new Map([['3', account({ value: 0n, reservedValue: parseAmount('995'), netDebitCap: 0n })]]),
      transfers: new Map([['t0', { history: history('RECEIVED_PREPARE'), payeeAmount: undefined }]]),
    });
    expect(result.outcomes[0]).toEqual({ seq: 0, result: 'rejected', error: { name: 'LIQUIDITY' } });
  });

  it('answers a prepare redelivered after the commit with 2001: no ABORTED_REJECTED, no position change, no second prepare to the payee', () => {
    const result = planBatch({
      commands: [prepare(0)],
      accounts: new Map([['3', account()]]),
      transfers: new Map([
        [
          't0',
          { history: history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED'), payeeAmount: undefined },
        ],
      ]),
    });
    expect(result.outcomes[0]).toEqual({ seq: 0, result: 'failed', error: { name: 'INCORRECT_STATE' } });
    expect(result.stateChanges).toEqual([]);
    expect(result.positionUpdates).toEqual([]);
  });

  it('applies a duplicate inside one batch once', () => {
    const result = planBatch({
      commands: [prepare(0), { ...prepare(0), seq: 1 }],
      accounts: new Map([['3', account()]]),
      transfers: new Map([['t0', { history: history('RECEIVED_PREPARE'), payeeAmount: undefined }]]),
    });
    expect(result.outcomes.map((o) => o.result)).toEqual(['applied', 'replayed']);
    expect(result.positionChanges).toHaveLength(1);
  });
});

describe('decodePayload', () => {
  const uri = (body: string) => `data:application/vnd.interoperability.transfers+json;version=1.1;base64,${body}`;

  it('decodes a base64 data URI of JSON', () => {
    expect(decodePayload(uri(Buffer.from('{"transferId":"x"}').toString('base64')))).toEqual({ transferId: 'x' });
  });

  it.each([
    ['a character outside the alphabet', uri('eyJ0cmFuc2Zlck@lkIjoieCJ9')],
    ['missing padding', uri('eyJhIjoxfQ')],
    ['no data URI', 'eyJhIjoxfQ=='],
    ['base64 of something that is not JSON', uri(Buffer.from('not json').toString('base64'))],
  ])('rejects %s', (_name, payload) => {
    expect(() => decodePayload(payload)).toThrow();
  });
});
