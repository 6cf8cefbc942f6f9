import { AlsError } from '../fspiop/errors.js';

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
 * The oracle for a party ID type: with a currency, the rows for that currency (else the rows with none);
 * one row is the answer; several, the default one; several and no default is a clear error, where the
 * original used an undefined URL (issue #3).
 */
export function chooseOracle(records: readonly OracleRecord[], type: string, currency: string | undefined): string {
  const active = records.filter((r) => r.isActive && r.type === type);
  let candidates = currency ? active.filter((r) => r.currency === currency) : active;
  if (currency && candidates.length === 0) candidates = active.filter((r) => r.currency === null);
  if (candidates.length === 0) throw new AlsError('NO_ORACLE', { type });
  if (candidates.length === 1) return (candidates[0] as OracleRecord).url;
  const defaults = candidates.filter((r) => r.isDefault);
  if (defaults.length === 0) throw new AlsError('NO_DEFAULT_ORACLE', { type });
  return (defaults[0] as OracleRecord).url;
}
