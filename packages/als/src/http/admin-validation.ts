import { type ErrorInformation, errorInformation, FspiopError, type FspiopErrorDefinition } from '@mojafast/fspiop';
import { oraclePartyIdTypes } from '../fspiop/party-id.js';
import type { OracleInput } from '../upstream/oracle-registry.js';

/**
 * The admin API's request checks, as account-lookup-service v17.16.1 makes them: its OpenAPI document
 * (src/interface/admin-swagger.yaml) validated by openapi-backend 5.17 and Ajv 8 with coerceTypes, the
 * first error turned into an FSPIOP error by central-services-error-handling
 * (createFSPIOPErrorFromOpenapiError: `required` → 3102, `type` → 3101, `additionalProperties` → 3103,
 * anything else → 3100; the description is "<instancePath> <Ajv message>"). The texts are Ajv's, so the
 * answers are the original's word for word.
 */

/** The admin operations, by the original's operationId. */
export type AdminOperation = 'OraclesGet' | 'OraclesPost' | 'OraclesByIdPut' | 'OraclesByIdDelete';

/**
 * Required headers in the order the original's validator looks for them: the operation's own parameters
 * first, then the path's (openapi-backend appends the path-level ones). PUT declares no Accept.
 */
const requiredHeaders: Readonly<Record<AdminOperation, readonly string[]>> = {
  OraclesGet: ['accept', 'content-type', 'date'],
  OraclesPost: ['accept', 'content-type', 'date'],
  OraclesByIdPut: ['content-type', 'date'],
  OraclesByIdDelete: ['accept', 'content-type', 'date'],
};

/** Declared query parameters; the validator refuses any other (additionalProperties: false). */
const queryParameters: Readonly<Record<AdminOperation, readonly string[]>> = {
  OraclesGet: ['type', 'currency'],
  OraclesPost: [],
  OraclesByIdPut: [],
  OraclesByIdDelete: [],
};

/** The admin document's PartyIdType enum: the extended types are always there, whatever the API port allows. */
export const adminPartyIdTypes: ReadonlySet<string> = new Set(oraclePartyIdTypes);

/** The admin document's EndpointType enum. */
const endpointTypes: ReadonlySet<string> = new Set(['URL']);

export class AdminRequestError extends Error {
  constructor(
    readonly fspiop: FspiopErrorDefinition,
    readonly detail: string,
  ) {
    super(`${fspiop.code} ${fspiop.description} - ${detail}`);
    this.name = 'AdminRequestError';
  }

  get status(): number {
    return this.fspiop.httpStatus;
  }

  body(): { errorInformation: ErrorInformation } {
    return { errorInformation: errorInformation(this.fspiop, this.detail) };
  }
}

const missing = (path: string, property: string) =>
  new AdminRequestError(FspiopError.MISSING_ELEMENT, `${path} must have required property '${property}'`);
const wrongType = (path: string, type: string) =>
  new AdminRequestError(FspiopError.MALFORMED_SYNTAX, `${path} must be ${type}`);
const notAllowed = (path: string) =>
  new AdminRequestError(FspiopError.VALIDATION_ERROR, `${path} must be equal to one of the allowed values`);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Ajv's coercion to string (coerceTypes: true): numbers and booleans become their text, null "". */
function asString(value: Json, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  throw wrongType(path, 'string');
}

/** Ajv's coercion to boolean: "true"/"false", 1/0 and null (false) are accepted. */
function asBoolean(value: Json, path: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 1) return true;
  if (value === 'false' || value === 0 || value === null) return false;
  throw wrongType(path, 'boolean');
}

const isHttpUrl = (value: string) => {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
};

/**
 * The request body: what the original's raw-payload plugin makes of the bytes. A body that is not JSON, or
 * comes without a Content-Type, stays an (empty) object there, so it is checked as one and found without
 * its required properties.
 */
export function parseAdminBody(raw: unknown, contentType: string | string[] | undefined): Json {
  if (contentType === undefined || !Buffer.isBuffer(raw) || raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8')) as Json;
  } catch {
    return {};
  }
}

/**
 * The body of POST /oracles and PUT /oracles/{ID} (the document's OracleInfo), checked in Ajv's order:
 * the required properties, then each property in the schema's order. Ours adds one rule the document
 * lacks: the endpoint must be an http(s) URL, or every lookup the oracle serves would fail later.
 */
export function checkOracleInfo(body: Json, currencies: ReadonlySet<string>): OracleInput {
  const root = '/requestBody';
  if (!isObject(body)) throw wrongType(root, 'object');
  for (const property of ['endpoint', 'oracleIdType'])
    if (!Object.hasOwn(body, property)) throw missing(root, property);

  const oracleIdType = asString(body.oracleIdType as Json, `${root}/oracleIdType`);
  if (!adminPartyIdTypes.has(oracleIdType)) throw notAllowed(`${root}/oracleIdType`);

  const endpoint = body.endpoint as Json;
  if (!isObject(endpoint)) throw wrongType(`${root}/endpoint`, 'object');
  for (const property of ['endpointType', 'value'])
    if (!Object.hasOwn(endpoint, property)) throw missing(`${root}/endpoint`, property);
  const value = asString(endpoint.value as Json, `${root}/endpoint/value`);
  if (!isHttpUrl(value))
    throw new AdminRequestError(FspiopError.VALIDATION_ERROR, `${root}/endpoint/value must match format "uri"`);
  const endpointType = asString(endpoint.endpointType as Json, `${root}/endpoint/endpointType`);
  if (!endpointTypes.has(endpointType)) throw notAllowed(`${root}/endpoint/endpointType`);

  let currency: string | undefined;
  if (Object.hasOwn(body, 'currency')) {
    currency = asString(body.currency as Json, `${root}/currency`);
    if (!currencies.has(currency)) throw notAllowed(`${root}/currency`);
  }
  const isDefault = Object.hasOwn(body, 'isDefault')
    ? asBoolean(body.isDefault as Json, `${root}/isDefault`)
    : undefined;

  return {
    oracleIdType,
    endpoint: { value, endpointType },
    ...(currency === undefined ? {} : { currency }),
    ...(isDefault === undefined ? {} : { isDefault }),
  };
}

/**
 * The query and headers of an operation, checked after the body as the original does: undeclared query
 * parameters (3103), a repeated one (3101), then the required headers in the document's order (3102).
 */
export function checkAdminParameters(
  operation: AdminOperation,
  query: Readonly<Record<string, string | string[] | undefined>>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): void {
  const declared = queryParameters[operation];
  for (const name of Object.keys(query)) {
    if (!declared.includes(name))
      throw new AdminRequestError(FspiopError.TOO_MANY_ELEMENTS, '/query must NOT have additional properties');
  }
  for (const name of declared) if (Array.isArray(query[name])) throw wrongType(`/query/${name}`, 'string');
  for (const name of requiredHeaders[operation]) if (headers[name] === undefined) throw missing('/header', name);
}
