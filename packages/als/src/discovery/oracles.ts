import { AlsError } from '../fspiop/errors.js';
import type { PartyEntry } from './types.js';

/** One row of the oracle registry (the original's table oracleEndpoint, joined to its type names). */
export interface OracleRecord {
  readonly id: number;
  readonly type: string;
  readonly currency: string | null;
  readonly url: string;
  readonly endpointType: string;
  readonly isDefault: boolean;
  readonly isActive: boolean;
}

/**
 * The oracle for a party ID type, as the original's determineOracleEndpoint (src/models/oracle/facade.js):
 * with a currency (only a lookup passes one), the rows of that type and currency and no others, none is
 * 3003; without, every row of the type whatever its currency. One row is the answer; several, the
 * default one; several and no default is a clear error, where the original used an undefined URL.
 */
export function chooseOracle(records: readonly OracleRecord[], type: string, currency: string | undefined): string {
  const active = records.filter((r) => r.isActive && r.type === type);
  const candidates = currency ? active.filter((r) => r.currency === currency) : active;
  if (candidates.length === 0) {
    throw currency ? new AlsError('NO_ORACLE_FOR_CURRENCY', { type, currency }) : new AlsError('NO_ORACLE', { type });
  }
  if (candidates.length === 1) return (candidates[0] as OracleRecord).url;
  const defaults = candidates.filter((r) => r.isDefault);
  if (defaults.length === 0) throw new AlsError('NO_DEFAULT_ORACLE', { type });
  // The original takes the last default row (`filter(isDefault).pop()`).
  return (defaults[defaults.length - 1] as OracleRecord).url;
}

/**
 * The oracle's answer narrowed to what was asked: entries for a sub-id only when a sub-id was asked
 * for (and then only that one), one request per FSP.
 */
export function selectParties(entries: readonly PartyEntry[], subId: string | undefined): string[] {
  const fsps: string[] = [];
  for (const entry of entries) {
    if (subId === undefined ? entry.partySubIdOrType !== undefined : entry.partySubIdOrType !== subId) continue;
    if (!fsps.includes(entry.fspId)) fsps.push(entry.fspId);
  }
  return fsps;
}
