import type { Amount } from '../amount.js';
import type { AccountFacts } from '../types.js';

/**
 * The rule a prepare or fx-prepare of `amount` is checked by (central-ledger's domain/position/prepare.js):
 * liquidity cover first (4001, when the settlement model requires the check), then the net debit cap (4200), each
 * against the effective position = `position` + reservedValue. `position` is the account's running value: each
 * prepare accepted earlier in the batch has already raised it, so the headroom shrinks within a batch (the
 * original adds the amount back and over-reserves). An amount equal to the headroom passes.
 */
export function checkLiquidityAndLimit(
  position: Amount,
  facts: AccountFacts,
  amount: Amount,
): 'LIQUIDITY' | 'LIMIT' | undefined {
  const effective = position + facts.reservedValue;
  if (facts.liquidityCover !== null && amount > facts.liquidityCover - effective) return 'LIQUIDITY';
  if (facts.netDebitCap !== undefined && amount > facts.netDebitCap - effective) return 'LIMIT';
  return undefined;
}
