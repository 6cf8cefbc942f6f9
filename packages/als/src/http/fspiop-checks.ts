import type { FastifyRequest } from 'fastify';
import type { Resource } from '../discovery/endpoints.js';
import type { PartyRef } from '../discovery/types.js';
import { AlsError } from '../fspiop/errors.js';
import { checkHeaders, type IngressFacts } from '../fspiop/ingress.js';
import type { BodySchemaName, FspiopSchemas, IsoBodySchemaName } from '../fspiop/schemas.js';
import type { ApiType, FspiopVersion } from '../fspiop/versions.js';

/**
 * The checks of an FSPIOP request, in the original's words (its OpenAPI definition through openapi-backend
 * and ajv, then its own header checks). They stay hand-written rather than fastify route schemas: fastify
 * validates params, body, query and headers in that fixed order before the handler, while the original
 * reports headers first, then the body, then the path and query, and which party ID types are valid depends
 * on the FSPIOP version the headers name; a route schema would answer a request with two faults with the
 * other one (the parity corpus has such cases).
 */

/** The FSPIOP PartyIdentifier's length limit (API v1.1 section 7.3.24; the original's OpenAPI ID maxLength). */
export const maxPartyIdLength = 128;

/** The original's OpenAPI pattern of an {ID} (api-swagger.yaml components/parameters/ID), checked decoded. */
const idPattern = /^[^\s{}]+$/u;

export interface PartyParams {
  type: string;
  id: string;
  subId?: string;
}

export type PartyRequest = FastifyRequest<{ Params: PartyParams; Querystring: { currency?: string } }>;

export function partyOf(params: PartyParams): PartyRef {
  return { type: params.type, id: params.id, subId: params.subId };
}

/** {ID} as the original's OpenAPI definition checks it: maxLength first, then the pattern (ajv's order). */
export function checkId(id: string): void {
  if (id.length > maxPartyIdLength) throw new AlsError('PATH_PARAM_TOO_LONG', { param: 'ID', limit: maxPartyIdLength });
  if (!idPattern.test(id))
    throw new AlsError('PARAM_INVALID', { path: '/path/ID', reason: 'must match pattern "^[^\\s{}]+$"' });
}

/** Query parameters beyond `?currency=` (on a GET, the only one served) are refused as the original's 3103. */
export function checkQuery(query: Record<string, unknown>, currencyServed: boolean): void {
  for (const name in query) {
    if (currencyServed && name === 'currency') continue;
    throw new AlsError('PARAM_TOO_MANY', { path: '/query', reason: 'must NOT have additional properties' });
  }
}

/** The party ID types served: the API definition's of each version, and FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE's. */
export class PartyIdTypes {
  readonly #byVersion: Record<FspiopVersion, ReadonlySet<string>>;

  constructor(schemas: FspiopSchemas, extra: ReadonlySet<string>) {
    const versions = Object.keys(schemas.partyIdTypes) as FspiopVersion[];
    this.#byVersion = Object.fromEntries(
      versions.map((version) => {
        const served = schemas.partyIdTypes[version];
        return [version, extra.size === 0 ? served : new Set([...served, ...extra])];
      }),
    ) as Record<FspiopVersion, ReadonlySet<string>>;
  }

  of(version: FspiopVersion): ReadonlySet<string> {
    return this.#byVersion[version];
  }

  check(type: string, version: FspiopVersion): void {
    if (!this.#byVersion[version].has(type)) throw new AlsError('INVALID_PARTY_ID_TYPE', { type });
  }
}

/**
 * The path and query as the original's OpenAPI definition checks them (src/interface/api-swagger.yaml through
 * openapi-backend), synchronously and in its words: {Type} one of the enum, {ID} at most 128 characters of
 * `^[^\s{}]+$` (decoded: `%7B` is a brace), no query parameter but `?currency=` (ours, README differences).
 * An empty {ID} or {SubId} (`/parties/MSISDN/`) matches no route of the API definition.
 */
export function checkPath(request: PartyRequest, version: FspiopVersion, types: PartyIdTypes): void {
  const { id, subId } = request.params;
  if (id === '' || subId === '') throw new AlsError('UNKNOWN_URI', { method: request.method, path: request.url });
  types.check(request.params.type, version);
  checkId(id);
  if (request.url.includes('?')) checkQuery(request.query, request.method === 'GET');
}

/**
 * The FSPIOP header checks, after the Host check Node's own is replaced by (requireHostHeader off in
 * main.ts): Node answered a missing Host with an empty 400; RFC 9112 section 3.2 asks for the 400, this
 * gives it an FSPIOP body (3102).
 */
export function headersOf(
  request: FastifyRequest,
  method: string,
  resource: Resource,
  hubVersion: FspiopVersion,
  api: ApiType,
): IngressFacts {
  if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
    throw new AlsError('MISSING_HEADER', { header: 'host' });
  return checkHeaders(method, resource, request.headers, hubVersion, api);
}

/** `?currency=` must be one code of the API's Currency enum (ISO 4217), once. */
export function checkCurrency(currency: unknown, currencies: ReadonlySet<string>): string | undefined {
  if (currency === undefined) return undefined;
  if (typeof currency !== 'string' || !currencies.has(currency))
    throw new AlsError('INVALID_QUERY', { param: 'currency', reason: 'must be one ISO 4217 currency code' });
  return currency;
}

/**
 * The body checked against the API definition's schema of its version. No body, or one that is not JSON:
 * the original's validator sees an empty object (hapi's raw payload plugin), so the answer names the first
 * required member missing.
 */
export function parseBody(
  request: FastifyRequest,
  schemas: FspiopSchemas,
  version: FspiopVersion,
  schema: BodySchemaName | IsoBodySchemaName,
): unknown {
  const raw = request.body;
  let parsed: unknown = {};
  if (Buffer.isBuffer(raw) && raw.length > 0) {
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      parsed = {};
    }
  }
  schemas.validate(version, schema, parsed);
  return parsed;
}
