import { type ProvisionedLedger, parseAmount } from '@mojafast/position-handler';
import type { Knex } from 'knex';

/** Transfers of a phase with no notification (`lost`) and notifications beyond the first (`duplicated`). */
export function countDeliveries(
  transferIds: Iterable<string>,
  seen: ReadonlyMap<string, number>,
): { lost: number; duplicated: number } {
  let lost = 0;
  let duplicated = 0;
  for (const id of new Set(transferIds)) {
    const count = seen.get(id) ?? 0;
    if (count === 0) lost++;
    else duplicated += count - 1;
  }
  return { lost, duplicated };
}

/** Every account whose final position differs from what the mix makes, as one line each. */
export async function positionMismatches(
  knex: Knex,
  ledger: ProvisionedLedger,
  expected: ReadonlyMap<string, bigint>,
): Promise<string[]> {
  const accountOf = (key: string) => ledger.accounts.get(key)?.position as number;
  const rows = await knex('participantPosition')
    .select('participantCurrencyId', 'value')
    .whereIn('participantCurrencyId', [...expected.keys()].map(accountOf));
  const actual = new Map(
    rows.map((r: { participantCurrencyId: string | number; value: string }) => [
      Number(r.participantCurrencyId),
      parseAmount(String(r.value)),
    ]),
  );
  return [...expected]
    .filter(([key, value]) => actual.get(accountOf(key)) !== value)
    .map(
      ([key, value]) =>
        `account ${accountOf(key)} (${key}): expected ${value}, found ${actual.get(accountOf(key))} (ten-thousandths)`,
    );
}
