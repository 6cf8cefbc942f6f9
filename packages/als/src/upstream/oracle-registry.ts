import { readFileSync } from 'node:fs';
import { chooseOracle, type OracleRecord } from '../discovery/oracles.js';
import { type CacheResult, createCache } from './cache.js';

/** The body of POST /oracles and one element of an oracles file (the original admin API's shape). */
export interface OracleInput {
  readonly oracleIdType: string;
  readonly endpoint: { readonly value: string; readonly endpointType?: string };
  readonly currency?: string | null;
  readonly isDefault?: boolean;
}

export interface OracleStore {
  /** Active rows, all types or one. */
  list(type?: string): Promise<OracleRecord[]>;
  create(input: OracleInput): Promise<OracleRecord>;
  update(id: number, input: Partial<OracleInput>): Promise<boolean>;
  /** Marks the row inactive (the original keeps the row). */
  remove(id: number): Promise<boolean>;
  close(): Promise<void>;
  /** A database store: resolves when the database answers (for /health); a memory store has none. */
  ping?(): Promise<void>;
}

export interface OracleRegistry {
  oracleFor(type: string, currency: string | undefined): Promise<string>;
  readonly store: OracleStore;
  /** Drops cached rows after an admin change. */
  invalidate(): void;
}

/** The registry in memory, seeded from a file or a list: the ALS runs without a database. */
export function createMemoryOracleStore(seed: readonly OracleInput[]): OracleStore {
  const rows: OracleRecord[] = [];
  let nextId = 1;
  const toRecord = (input: OracleInput, id: number): OracleRecord => ({
    id,
    type: input.oracleIdType,
    currency: input.currency ?? null,
    url: input.endpoint.value.replace(/\/+$/, ''),
    endpointType: input.endpoint.endpointType ?? 'URL',
    isDefault: input.isDefault ?? false,
    isActive: true,
  });
  for (const input of seed) rows.push(toRecord(input, nextId++));
  return {
    async list(type) {
      return rows.filter((r) => r.isActive && (type === undefined || r.type === type));
    },
    async create(input) {
      const record = toRecord(input, nextId++);
      rows.push(record);
      return record;
    },
    async update(id, input) {
      const index = rows.findIndex((r) => r.id === id && r.isActive);
      if (index === -1) return false;
      const old = rows[index] as OracleRecord;
      rows[index] = {
        ...old,
        type: input.oracleIdType ?? old.type,
        url: input.endpoint?.value.replace(/\/+$/, '') ?? old.url,
        endpointType: input.endpoint?.endpointType ?? old.endpointType,
        currency: input.currency === undefined ? old.currency : input.currency,
        isDefault: input.isDefault ?? old.isDefault,
      };
      return true;
    },
    async remove(id) {
      const index = rows.findIndex((r) => r.id === id && r.isActive);
      if (index === -1) return false;
      rows[index] = { ...(rows[index] as OracleRecord), isActive: false };
      return true;
    },
    async close() {},
  };
}

export function readOraclesFile(path: string): OracleInput[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`ALS_ORACLES_FILE ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`ALS_ORACLES_FILE ${path}: expected a JSON array of oracles`);
  parsed.forEach((item, i) => {
    const o = item as Partial<OracleInput>;
    if (typeof o?.oracleIdType !== 'string' || typeof o.endpoint?.value !== 'string' || !URL.canParse(o.endpoint.value))
      throw new Error(`ALS_ORACLES_FILE ${path}: entry ${i} needs oracleIdType and endpoint.value (a URL)`);
  });
  return parsed as OracleInput[];
}

/** Rows read per type through a cache (a database round trip per lookup would dominate a lookup). */
export function createOracleRegistry(
  store: OracleStore,
  options: { ttlMs: number; maxStaleMs: number; record?: (cache: string, result: CacheResult) => void },
): OracleRegistry {
  const rowsByType = createCache<OracleRecord[]>({
    name: 'oracle_registry',
    ttlMs: options.ttlMs,
    maxStaleMs: options.maxStaleMs,
    max: 1_000,
    record: options.record,
    load: (type) => store.list(type),
  });
  // TTL 0 (the in-memory registry): read the store directly, nothing to share or refresh.
  const rows = options.ttlMs > 0 ? (type: string) => rowsByType.get(type) : (type: string) => store.list(type);
  return {
    store,
    async oracleFor(type, currency) {
      return chooseOracle(await rows(type), type, currency);
    },
    invalidate: () => rowsByType.clear(),
  };
}
