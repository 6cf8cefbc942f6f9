/**
 * Amounts as BigInt counts of 1/10,000: central-ledger stores positions, limits and transfer amounts as
 * DECIMAL(18,4) (its migrations *-decimal184.js), so every such value the handler reads or writes is an integer
 * number of ten-thousandths and sums are exact. One column is coarser: participantPositionChange.change is
 * DECIMAL(18,2) in the central-ledger we migrate (19.5.5, 310404_participantPositionChange-change.js; from 19.10
 * 310405/310406 leave it DECIMAL(18,4)), so the change written there is rounded by the database to hundredths,
 * as the original's is; the position's value beside it keeps four places.
 * Binary floating point (the original's MLNumber.toNumber() comparisons) is never used.
 */
export type Amount = bigint;

export const AMOUNT_SCALE = 4;
const FACTOR = 10_000n;
const DECIMAL = /^(-)?(\d{1,14})(?:\.(\d{1,4})0*)?$/;

export class AmountError extends Error {
  constructor(readonly text: string) {
    super(`not a DECIMAL(18,4) amount: "${text}"`);
    this.name = 'AmountError';
  }
}

/** Parses "10", "-10.5", "10.0000" (MySQL's DECIMAL text). More than 4 significant decimals is an error. */
export function parseAmount(text: string | number): Amount {
  const value = typeof text === 'number' ? String(text) : text.trim();
  const match = DECIMAL.exec(value);
  if (!match) throw new AmountError(value);
  const [, minus, whole = '0', fraction = ''] = match;
  const scaled = BigInt(whole) * FACTOR + BigInt(fraction.padEnd(AMOUNT_SCALE, '0'));
  return minus ? -scaled : scaled;
}

/** Formats as MySQL's DECIMAL(18,4) text, e.g. -25n*10^4 → "-25.0000". */
export function formatAmount(value: Amount): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / FACTOR;
  const fraction = (abs % FACTOR).toString().padStart(AMOUNT_SCALE, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}
