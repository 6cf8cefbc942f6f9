import type { OracleReply, OracleScript, ParticipantState } from './sims.js';

/** How an FSP a case names is known to central-ledger; absent from `fsps`, it is unknown to it. */
export interface FspSpec {
  readonly active?: boolean;
  readonly endpoints?: ParticipantState['endpoints'];
}

/** The base header set a request starts from (then `set` and `unset`). */
export type HeaderSet = 'parties' | 'participants' | 'admin' | 'none';

/**
 * One request to the ALS under test, the upstreams' behaviour around it, and (implicitly) what is recorded:
 * its synchronous answer and every request the oracle, central-ledger and the FSPs receive because of it.
 *
 * Templates in path, headers and bodies: `{payer}`, `{payee}`, `{payee2}`, `{dest}`, `{ghost}` (FSP names,
 * unique to the case; `{ghost}` is never registered), `{id}`, `{id2}` (MSISDN-shaped party IDs unique to the
 * case), `{email}`, `{rid}` (a request UUID), `{date}` (now, RFC 1123), `{oracle:TYPE}` (the id of the
 * active oracle of that type, read from GET /oracles just before the case).
 */
export interface Case {
  readonly id: string;
  readonly title: string;
  /** `setup` and `admin` cases run one at a time in corpus order (they share the oracle registry); `api` ones in parallel. */
  readonly phase: 'setup' | 'api' | 'admin';
  readonly port: 'api' | 'admin';
  readonly method: string;
  /** Sent as written (after templating): percent-encodings and odd characters reach the ALS unchanged. */
  readonly path: string;
  readonly headerSet: HeaderSet;
  /** FSPIOP version of the base header set (1.1 unless said; 2.0 in ISO 20022 mode). */
  readonly version?: '1.0' | '1.1' | '2.0';
  /** The base header set's media types: `application/vnd.interoperability.iso20022.{resource}+json` (ISO 20022 mode). */
  readonly media?: 'iso20022';
  readonly set?: Readonly<Record<string, string>>;
  readonly unset?: readonly string[];
  /** An object is sent as JSON; a string as it is. */
  readonly body?: unknown;
  /** The FSPs central-ledger knows for this case, by role. */
  readonly fsps: Readonly<Record<string, FspSpec>>;
  /**
   * The case lasts at least this long after its request (the quiet window then still applies): for what the
   * ALS sends on its own later, as the timeout handler's answer to an inter-scheme lookup no proxy answered.
   */
  readonly minMs?: number;
  /** The oracle's answers (templated). */
  readonly oracle?: OracleScript;
}

export type { OracleReply, OracleScript };

/** The concrete values a case's templates stand for. */
export interface CaseValues {
  readonly tag: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, string>>;
}

export const ROLES = ['payer', 'payee', 'payee2', 'dest', 'ghost'] as const;

/**
 * The case's values: every one embeds `tag` (six digits, unique in the corpus), so a request an upstream
 * receives is attributed to its case by that tag alone, and placeholders put back where values stood.
 */
export function caseValues(index: number): CaseValues {
  const tag = String(100_000 + index);
  const names: Record<string, string> = {};
  for (const role of ROLES) names[role] = `${role}${tag}`;
  const values: Record<string, string> = {
    id: `1613${tag}1`,
    id2: `1613${tag}2`,
    email: `u${tag}@example.com`,
    rid: `00000000-0000-4000-8000-000000${tag}`,
    trace: `0af7651916cd43dd8448eb211c${tag}`,
    span: `b7ad6b71${tag}00`,
  };
  return { tag, names, values };
}

/** Replaces the case's templates in a string. */
export function fill(text: string, v: CaseValues, extra: Readonly<Record<string, string>> = {}): string {
  return text.replace(/\{([a-zA-Z0-9]+(?::[A-Z_]+)?)\}/g, (whole, key: string) => {
    if (key in extra) return extra[key] as string;
    if (key === 'tag') return v.tag;
    if (key in v.names) return v.names[key] as string;
    if (key in v.values) return v.values[key] as string;
    return whole;
  });
}

/** fill() over every string of a JSON-like value. */
export function fillDeep<T>(value: T, v: CaseValues, extra: Readonly<Record<string, string>> = {}): T {
  if (typeof value === 'string') return fill(value, v, extra) as T;
  if (Array.isArray(value)) return value.map((item) => fillDeep(item, v, extra)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = fillDeep(item, v, extra);
    return out as T;
  }
  return value;
}

/**
 * The reverse of fill(): the case's concrete values back to their placeholders (longest first, so `payee2…`
 * is not read as `payee…`), and any other occurrence of the tag as `{tag}`.
 */
export function unfill(text: string, v: CaseValues): string {
  const pairs: [string, string][] = [
    ...Object.entries(v.names).map(([role, name]): [string, string] => [name, `{${role}}`]),
    ...Object.entries(v.values).map(([key, value]): [string, string] => [value, `{${key}}`]),
  ].sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [value, placeholder] of pairs) out = out.split(value).join(placeholder);
  return out.split(v.tag).join('{tag}');
}
