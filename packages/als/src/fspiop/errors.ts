import { type ErrorInformation, errorInformation, FspiopError, type FspiopErrorDefinition } from '@mojafast/fspiop';

/**
 * Every error the ALS produces, in one table: the FSPIOP code (from @mojafast/fspiop), the HTTP status
 * when it is answered synchronously (undefined: only ever sent in an error callback), and the detail
 * template appended to the FSPIOP description. docs/failures.md "Errors" lists the same table; a test keeps
 * them in step.
 */
export interface AlsErrorEntry {
  readonly fspiop: FspiopErrorDefinition;
  readonly status: number | undefined;
  readonly template: string;
  /** An extensionList the error always carries (the 406 answers list the supported versions). */
  readonly extensions?: readonly { readonly key: string; readonly value: string }[];
}

function catalogue<const T extends Record<string, AlsErrorEntry>>(table: T): Readonly<T> {
  for (const entry of Object.values(table) as AlsErrorEntry[]) Object.freeze(entry);
  return Object.freeze(table);
}

export const AlsErrors = catalogue({
  MISSING_HEADER: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '/header/{header}' },
  // The header checks of the original, in its words (central-services-shared headerValidation.js and its
  // constants' errorMessages): `{text}` is one of them.
  HEADER_REQUIRED: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '{text}' },
  HEADER_INVALID: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: '{text}' },
  ACCEPT_VERSION_UNSUPPORTED: {
    fspiop: FspiopError.UNACCEPTABLE_VERSION,
    status: 406,
    template: 'The Client requested an unsupported version, see extension list for supported version(s).',
    // The original's supported Accept versions (PROTOCOL_VERSIONS.ACCEPT.VALIDATELIST) as major/minor pairs.
    extensions: [
      { key: '1', value: '0' },
      { key: '1', value: '1' },
      { key: '2', value: '0' },
    ],
  },
  CONTENT_TYPE_VERSION_UNSUPPORTED: {
    fspiop: FspiopError.UNACCEPTABLE_VERSION,
    status: 406,
    template: 'Client supplied a protocol version which is not supported by the server',
    // PROTOCOL_VERSIONS.CONTENT.VALIDATELIST, in its order.
    extensions: [
      { key: '1', value: '1' },
      { key: '1', value: '0' },
      { key: '2', value: '0' },
    ],
  },
  // A path no route of the original matches: hapi's 404, "Not Found", reworded by its error handling.
  UNKNOWN_URI: { fspiop: FspiopError.UNKNOWN_URI, status: 404, template: 'Not Found' },
  // A route the API has, asked with a method it does not serve (central-services-error-handling's
  // onPreResponse turns hapi's 404 into this when another method matches the path).
  METHOD_NOT_ALLOWED: { fspiop: FspiopError.CLIENT_ERROR, status: 405, template: 'Method Not Allowed' },
  MALFORMED_URI: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: 'path {path} is not valid' },
  // The original's OpenAPI validation of path, query and header parameters (openapi-backend, ajv), as
  // createFSPIOPErrorFromOpenapiError words it: the instance path, then ajv's message.
  PARAM_INVALID: { fspiop: FspiopError.VALIDATION_ERROR, status: 400, template: '{path} {reason}' },
  PARAM_MISSING: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '{path} {reason}' },
  PARAM_TOO_MANY: { fspiop: FspiopError.TOO_MANY_ELEMENTS, status: 400, template: '{path} {reason}' },
  INVALID_PARTY_ID_TYPE: {
    fspiop: FspiopError.VALIDATION_ERROR,
    status: 400,
    template: '/path/Type must be equal to one of the allowed values',
  },
  PATH_PARAM_TOO_LONG: {
    fspiop: FspiopError.VALIDATION_ERROR,
    status: 400,
    template: '/path/{param} must NOT have more than {limit} characters',
  },
  INVALID_QUERY: { fspiop: FspiopError.VALIDATION_ERROR, status: 400, template: '/query/{param} {reason}' },
  MALFORMED_REQUEST: {
    fspiop: FspiopError.MALFORMED_SYNTAX,
    status: 400,
    template: 'request is not valid HTTP/1.1 ({reason})',
  },
  HEADERS_TOO_LARGE: {
    fspiop: FspiopError.TOO_LARGE_PAYLOAD,
    status: 431,
    template: 'request headers exceed {limit} bytes',
  },
  REQUEST_TIMEOUT: {
    fspiop: FspiopError.CLIENT_ERROR,
    status: 408,
    template: 'request not received completely within {ms} ms',
  },
  OVERLOADED: {
    fspiop: FspiopError.SERVICE_CURRENTLY_UNAVAILABLE,
    status: 503,
    template: '{limit} lookups in flight in this process; retry after {seconds} s',
  },
  UNKNOWN_SOURCE: {
    fspiop: FspiopError.MALFORMED_SYNTAX,
    status: 400,
    // The original's words (src/lib/validators.js validateSourceFspHeader).
    template: 'invalid fspiop-source header',
  },
  MALFORMED_BODY: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: 'body is not valid JSON' },
  BODY_TOO_MANY_ELEMENTS: { fspiop: FspiopError.TOO_MANY_ELEMENTS, status: 400, template: '{path} {reason}' },
  BODY_TOO_LARGE: { fspiop: FspiopError.TOO_LARGE_PAYLOAD, status: 400, template: 'body exceeds {limit} bytes' },
  BODY_MISSING_ELEMENT: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '{path} {reason}' },
  BODY_MALFORMED_ELEMENT: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: '{path} {reason}' },
  BODY_INVALID: { fspiop: FspiopError.VALIDATION_ERROR, status: 400, template: '{path} {reason}' },
  INVALID_PARTY_ID: { fspiop: FspiopError.MALFORMED_SYNTAX, status: undefined, template: '{reason}' },
  // GET /parties: no FSP of the oracle's answer is in the scheme, and no proxy to ask (the original's
  // GetPartiesService.triggerInterSchemeDiscoveryFlow), in its words.
  PARTY_NOT_FOUND: {
    fspiop: FspiopError.PARTY_NOT_FOUND,
    status: undefined,
    template: 'No proxy found to start inter-scheme discovery flow',
  },
  // GET /parties: the oracle answered entries, none for the sub-id asked (or any, without one).
  FILTERED_PARTY_LIST_EMPTY: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'Empty oracle partyList, filtered based on callbackEndpointType',
  },
  // The original's words (GetPartiesService: no proxy to ask once the destination is not in the scheme).
  DESTINATION_NOT_FOUND: {
    fspiop: FspiopError.PARTY_NOT_FOUND,
    status: undefined,
    template: 'No proxy found to start inter-scheme discovery flow',
  },
  CALLBACK_DESTINATION_UNKNOWN: {
    fspiop: FspiopError.DESTINATION_FSP_ERROR,
    status: undefined,
    // The original's words (PutPartiesService: identifyDestinationForCallback).
    template: 'Destination FSP not found',
  },
  // PUT /participants/.../error to an FSP central-ledger does not know (the original's words: none).
  DESTINATION_FSP_ERROR: { fspiop: FspiopError.DESTINATION_FSP_ERROR, status: undefined, template: '' },
  UNKNOWN_FSP: {
    fspiop: FspiopError.DESTINATION_FSP_ERROR,
    status: undefined,
    template: 'FSP {fspId} is not a participant',
  },
  NO_ORACLE: { fspiop: FspiopError.ADD_PARTY_INFO_ERROR, status: undefined, template: 'Oracle type:{type} not found' },
  NO_ORACLE_FOR_CURRENCY: {
    fspiop: FspiopError.ADD_PARTY_INFO_ERROR,
    status: undefined,
    template: 'Oracle type:{type} and currency:{currency} not found',
  },
  NO_DEFAULT_ORACLE: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    status: undefined,
    template: 'several oracles for {type} and none is the default',
  },
  ORACLE_FAILED: { fspiop: FspiopError.INTERNAL_SERVER_ERROR, status: undefined, template: 'oracle: {reason}' },
  // A flow that failed in a way nothing anticipated (the original's catch-all: reformatFSPIOPError, 2001).
  UNEXPECTED_FAILURE: { fspiop: FspiopError.INTERNAL_SERVER_ERROR, status: undefined, template: '' },
  SWITCH_FAILED: { fspiop: FspiopError.INTERNAL_SERVER_ERROR, status: undefined, template: 'central-ledger: {reason}' },
  SOURCE_UNREACHABLE: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    status: 500,
    template: 'central-ledger: {reason}; the error callback endpoint of {source} is unknown',
  },
  NO_ENDPOINT: {
    fspiop: FspiopError.DESTINATION_COMMUNICATION_ERROR,
    status: undefined,
    // The original's words (central-services-shared util/endpoints.js getEndpoint).
    template: 'no {endpoint} endpoint for DFSP {destination}',
  },
  // The /participants answers of the original (src/domain/participants/participants.js), word for word.
  SOURCE_NOT_FOUND: { fspiop: FspiopError.ID_NOT_FOUND, status: 400, template: 'Requester FSP not found' },
  PARTICIPANT_NOT_FOUND: { fspiop: FspiopError.PARTY_NOT_FOUND, status: undefined, template: '' },
  ADD_PARTY_FAILED: { fspiop: FspiopError.ADD_PARTY_INFO_ERROR, status: undefined, template: '' },
  DELETE_PARTY_FAILED: { fspiop: FspiopError.DELETE_PARTY_INFO_ERROR, status: undefined, template: '{reason}' },
  NOT_IMPLEMENTED: { fspiop: FspiopError.NOT_IMPLEMENTED, status: 501, template: '' },
  // An oracle's failure (src/models/oracle/facade.js sendOracleGetRequest; central-services-shared
  // src/util/request.js sendRequest).
  ORACLE_BAD_REQUEST: { fspiop: FspiopError.PARTY_NOT_FOUND, status: undefined, template: '' },
  ORACLE_NOT_FOUND: { fspiop: FspiopError.DESTINATION_FSP_ERROR, status: undefined, template: '' },
  ORACLE_CLIENT_ERROR: { fspiop: FspiopError.CLIENT_ERROR, status: undefined, template: '{reason}' },
  ORACLE_ID_NOT_FOUND: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'The requested resource could not be found',
  },
  // JWS (the original's src/plugins.js onPostAuth): the validator's message as the detail.
  INVALID_SIGNATURE: { fspiop: FspiopError.INVALID_SIGNATURE, status: 400, template: '{reason}' },
  // Inter-scheme discovery, the original's words (src/constants.js ERROR_MESSAGES, GetPartiesService.js,
  // PutPartiesService.js, TimeoutPartiesService.js).
  PROXY_MAPPING_FAILED: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'failed to addDfspIdToProxyMapping',
  },
  PROXY_LIST_NOT_CACHED: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'Failed to cache sendToProxiesList',
  },
  PROXY_CONNECTION_ERROR: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'Proxy connection error - no successful requests sent to proxies',
  },
  NO_SUCCESSFUL_PROXY_RESPONSES: {
    fspiop: FspiopError.ID_NOT_FOUND,
    status: undefined,
    template: 'No successful proxy discovery responses',
  },
  EXTERNAL_PARTY_ERROR: {
    fspiop: FspiopError.PARTY_RESOLUTION_FAILURE,
    status: undefined,
    template: 'External party resolution error',
  },
  LOOKUP_EXPIRED: { fspiop: FspiopError.EXPIRED_ERROR, status: undefined, template: '' },
  PROXY_CACHE_FAILED: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    status: undefined,
    template: 'proxy cache: {reason}',
  },
  // An oracle or an FSP that could not be reached or answered 5xx, in the original's words
  // (central-services-shared request.js).
  ORACLE_UNREACHABLE: {
    fspiop: FspiopError.DESTINATION_COMMUNICATION_ERROR,
    status: undefined,
    template: 'Failed to send HTTP request to host',
  },
});

export type AlsErrorName = keyof typeof AlsErrors;

function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}

/** An ALS failure: which catalogue entry, with what values; carries what the error body needs. */
export class AlsError extends Error {
  readonly entry: AlsErrorEntry;
  constructor(
    readonly errorName: AlsErrorName,
    readonly values: Readonly<Record<string, string | number>> = {},
  ) {
    const entry = AlsErrors[errorName];
    const detail = fill(entry.template, values);
    super(`${entry.fspiop.code} ${entry.fspiop.description}${detail ? ` - ${detail}` : ''}`);
    this.name = 'AlsError';
    this.entry = entry;
  }

  get status(): number {
    return this.entry.status ?? this.entry.fspiop.httpStatus;
  }

  information(): ErrorInformation {
    const information = errorInformation(this.entry.fspiop, fill(this.entry.template, this.values));
    const extensions = this.entry.extensions;
    return extensions === undefined
      ? information
      : { ...information, extensionList: { extension: extensions.map((e) => ({ ...e })) } };
  }
}
