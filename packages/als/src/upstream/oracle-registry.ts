import { readFileSync } from 'node:fs';
import { chooseOracle, type OracleRecord } from '../discovery/oracles.js';
import { type CacheResult, createCache } from './cache.js';
import { createFreshReads } from './fresh-reads.js';

/** The body of POST /oracles and one element of an oracles file (the original admin API's shape). */
export interface OracleInput {
  readonly oracleIdType: string;
  readonly endpoint: { readonly value: string; readonly endpointType?: string };
  readonly currency?: string | null;
  readonly isDefault?: boolean;
}

/** A row's fields once a POST or PUT is applied (the oracleEndpoint columns an admin call sets). */
export interface OracleFields {
  readonly type: string;
  readonly url: string;
  readonly endpointType: string;
  readonly currency: string | null;
  readonly isDefault: boolean;
}

export interface OracleStore {
  /** Active rows, all types or one, in the order they were registered. */
  list(type?: string): Promise<OracleRecord[]>;
  /** One active row. */
  get(id: number): Promise<OracleRecord | undefined>;
  create(fields: OracleFields): Promise<OracleRecord>;
  /** Replaces an active row's fields; false when no active row has the id. */
  update(id: number, fields: OracleFields): Promise<boolean>;
  /** Marks the row inactive (the original keeps the row). */
  remove(id: number): Promise<boolean>;
  close(): Promise<void>;
  /** A database store: resolves when the database answers (for /health); a memory store has none. */
  ping?(): Promise<void>;
}

export interface OracleRegistry {
  /** The URL of the oracle for a type (and currency), without a trailing slash. */
  oracleFor(type: string, currency: string | undefined): Promise<string>;
  readonly store: OracleStore;
  /** Drops cached rows after an admin change. */
  invalidate(): void;
}

const fieldsOf = (input: OracleInput): OracleFields => ({
  type: input.oracleIdType,
  url: input.endpoint.value,
  endpointType: input.endpoint.endpointType ?? 'URL',
  currency: input.currency ?? null,
  isDefault: input.isDefault ?? false,
});

/** The registry in memory, seeded from a file or a list: the ALS runs without a database. */
export function createMemoryOracleStore(seed: readonly OracleInput[]): OracleStore {
  const rows: OracleRecord[] = [];
  let nextId = 1;
  const add = (fields: OracleFields): OracleRecord => {
    const record = { id: nextId++, ...fields, isActive: true };
    rows.push(record);
    return record;
  };
  for (const input of seed) add(fieldsOf(input));
  const activeIndex = (id: number) => rows.findIndex((r) => r.id === id && r.isActive);
  return {
    async list(type) {
      return rows.filter((r) => r.isActive && (type === undefined || r.type === type));
    },
    async get(id) {
      return rows[activeIndex(id)];
    },
    async create(fields) {
      return add(fields);
    },
    async update(id, fields) {
      const index = activeIndex(id);
      if (index === -1) return false;
      rows[index] = { ...(rows[index] as OracleRecord), ...fields };
      return true;
    },
    async remove(id) {
      const index = activeIndex(id);
      if (index === -1) return false;
      rows[index] = { ...(rows[index] as OracleRecord), isActive: false };
      return true;
    },
    async close() {},
  };
}

/**
 * An {ID} of the admin API as a row id. The original hands the text to MySQL, which reads "1abc" as 1
 * (and updates or deactivates oracle 1); only decimal digits name a row here.
 */
export function parseOracleId(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2 ** 31 - 1 ? id : undefined;
}

/**
 * The original refuses a second active oracle with the same party ID type, endpoint type and currency
 * (none counts as a value): lookups could not tell them apart. A row never conflicts with itself.
 */
async function conflicting(store: OracleStore, fields: OracleFields, self?: number): Promise<boolean> {
  const rows = await store.list(fields.type);
  return rows.some(
    (r) => r.id !== self && r.endpointType === fields.endpointType && (r.currency ?? null) === fields.currency,
  );
}

export type AddOracleResult = 'created' | 'conflict';
export type ChangeOracleResult = 'updated' | 'not-found' | 'conflict';

/** POST /oracles. */
export async function addOracle(store: OracleStore, input: OracleInput): Promise<AddOracleResult> {
  const fields = fieldsOf(input);
  if (await conflicting(store, fields)) return 'conflict';
  await store.create(fields);
  return 'created';
}

/**
 * PUT /oracles/{ID}: type and endpoint are replaced (the body must carry both); currency and isDefault
 * keep their values when the body leaves them out, as the original's update does. Unlike the original,
 * isDefault false is applied (it ignores a false, so an oracle can never stop being the default), and a
 * row registered without currency can be updated (its look-up joins the currency table and misses it).
 */
export async function changeOracle(
  store: OracleStore,
  idText: string,
  input: OracleInput,
): Promise<ChangeOracleResult> {
  const id = parseOracleId(idText);
  const current = id === undefined ? undefined : await store.get(id);
  if (id === undefined || current === undefined) return 'not-found';
  const fields: OracleFields = {
    type: input.oracleIdType,
    url: input.endpoint.value,
    endpointType: input.endpoint.endpointType ?? current.endpointType,
    currency: input.currency ?? current.currency,
    isDefault: input.isDefault ?? current.isDefault,
  };
  if (await conflicting(store, fields, id)) return 'conflict';
  return (await store.update(id, fields)) ? 'updated' : 'not-found';
}

/** DELETE /oracles/{ID}: deactivates the row; an unknown or malformed id changes nothing (the original answers 204 either way). */
export async function removeOracle(store: OracleStore, idText: string): Promise<void> {
  const id = parseOracleId(idText);
  if (id !== undefined) await store.remove(id);
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

/**
 * Rows read per type: through a cache when a TTL is set (a database round trip per lookup would dominate a
 * lookup), else as reads shared only by lookups that arrived before each started (fresh-reads.ts), and an
 * in-memory store (`sharedReads` false) directly: there is nothing to share.
 */
export function createOracleRegistry(
  store: OracleStore,
  options: {
    ttlMs: number;
    maxStaleMs: number;
    sharedReads?: boolean;
    record?: (cache: string, result: CacheResult) => void;
  },
): OracleRegistry {
  const rowsByType = createCache<OracleRecord[]>({
    name: 'oracle_registry',
    ttlMs: options.ttlMs,
    maxStaleMs: options.maxStaleMs,
    max: 1_000,
    record: options.record,
    load: (type) => store.list(type),
  });
  const rows = (() => {
    if (options.ttlMs > 0) return (type: string) => rowsByType.get(type);
    if (options.sharedReads !== true) return (type: string) => store.list(type);
    const fresh = createFreshReads((type) => store.list(type));
    return (type: string) => fresh.get(type);
  })();
  return {
    store,
    async oracleFor(type, currency) {
      // The registered value is kept as given (GET /oracles answers it); requests append their paths.
      return chooseOracle(await rows(type), type, currency).replace(/\/+$/, '');
    },
    invalidate: () => rowsByType.clear(),
  };
}
