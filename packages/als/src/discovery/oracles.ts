import { AlsError } from '../fspiop/errors.js';
import { type CallbackError, oracleError } from './failures.js';
import { oracleHeaders } from './headers.js';
import type { DiscoveryPorts, PartyEntry, PartyLookup } from './types.js';

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

/** The party at the oracle, for a lookup: its entries, or the error the requester gets. */
export async function askOracle(
  ports: DiscoveryPorts,
  request: PartyLookup,
): Promise<readonly PartyEntry[] | CallbackError> {
  const started = performance.now();
  try {
    const oracle = await ports.oracles.oracleFor(request.party.type, request.currency);
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'GET');
    return await ports.oracles.lookup(oracle, request.party, request.currency, headers);
  } catch (error) {
    return oracleError(error, true);
  } finally {
    ports.observe.stage('oracle', started);
  }
}

/** Drops the oracle's entry of a party: undefined when done, else the error the requester gets. */
export async function dropOracleEntry(
  ports: DiscoveryPorts,
  request: Pick<PartyLookup, 'party' | 'headers' | 'source'>,
): Promise<CallbackError | undefined> {
  const started = performance.now();
  try {
    const oracle = await ports.oracles.oracleFor(request.party.type, undefined);
    const headers = oracleHeaders(request.headers, request.source, ports.hubName, 'DELETE');
    await ports.oracles.write(oracle, 'DELETE', request.party, undefined, headers);
    return undefined;
  } catch (error) {
    return oracleError(error, false);
  } finally {
    ports.observe.stage('oracle', started);
  }
}
