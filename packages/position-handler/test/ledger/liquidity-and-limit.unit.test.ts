import { describe, expect, it } from 'vitest';
import { checkLiquidityAndLimit } from '../../src/ledger/actions/liquidity-and-limit.js';
import { $, accountFacts } from './world.js';

describe('checkLiquidityAndLimit: the NDC and liquidity rule of a prepare', () => {
  it('passes an amount equal to the headroom and refuses one ten-thousandth more', () => {
    const facts = accountFacts('3', { netDebitCap: $('500'), liquidityCover: $('1000') });
    expect(checkLiquidityAndLimit($('100'), facts, $('400'))).toBeUndefined();
    expect(checkLiquidityAndLimit($('100'), facts, $('400.0001'))).toBe('LIMIT');
  });

  it('checks liquidity before the limit: both breached is 4001', () => {
    const facts = accountFacts('3', { netDebitCap: $('100'), liquidityCover: $('50') });
    expect(checkLiquidityAndLimit(0n, facts, $('200'))).toBe('LIQUIDITY');
    expect(checkLiquidityAndLimit(0n, facts, $('75'))).toBe('LIQUIDITY');
  });

  it('counts the reserved value as position', () => {
    const facts = accountFacts('3', { reservedValue: $('990'), netDebitCap: $('5000') });
    expect(checkLiquidityAndLimit(0n, facts, $('10'))).toBeUndefined();
    expect(checkLiquidityAndLimit(0n, facts, $('10.0001'))).toBe('LIQUIDITY');
  });

  it('gives a negative position (a net receiver) more headroom', () => {
    const facts = accountFacts('3', { netDebitCap: $('100'), liquidityCover: null });
    expect(checkLiquidityAndLimit($('-50'), facts, $('150'))).toBeUndefined();
    expect(checkLiquidityAndLimit($('-50'), facts, $('150.0001'))).toBe('LIMIT');
  });

  it('skips the liquidity check when the settlement model requires none (cover null)', () => {
    const facts = accountFacts('3', { netDebitCap: $('10'), liquidityCover: null });
    expect(checkLiquidityAndLimit(0n, facts, $('10'))).toBeUndefined();
    expect(checkLiquidityAndLimit(0n, facts, $('11'))).toBe('LIMIT');
  });

  it('checks liquidity alone when the account has no NET_DEBIT_CAP (prepare refuses such an account before)', () => {
    const facts = accountFacts('3', { netDebitCap: undefined, liquidityCover: $('10') });
    expect(checkLiquidityAndLimit(0n, facts, $('10'))).toBeUndefined();
    expect(checkLiquidityAndLimit(0n, facts, $('11'))).toBe('LIQUIDITY');
  });

  it('on every small combination: 4001 exactly when amount > cover − effective, else 4200 exactly when amount > cap − effective', () => {
    const values = [-2n, -1n, 0n, 1n, 2n, 3n];
    let checked = 0;
    for (const position of values)
      for (const reserved of [0n, 1n, 2n])
        for (const cover of [null, ...values])
          for (const cap of values)
            for (const amount of [0n, 1n, 2n, 3n, 5n]) {
              const facts = accountFacts('3', { reservedValue: reserved, liquidityCover: cover, netDebitCap: cap });
              const effective = position + reserved;
              const expected =
                cover !== null && effective + amount > cover
                  ? 'LIQUIDITY'
                  : effective + amount > cap
                    ? 'LIMIT'
                    : undefined;
              expect(
                checkLiquidityAndLimit(position, facts, amount),
                JSON.stringify([position, reserved, cover, cap, amount].map(String)),
              ).toBe(expected);
              checked++;
            }
    expect(checked).toBe(6 * 3 * 7 * 6 * 5);
  });
});
