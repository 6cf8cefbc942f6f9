import { type ErrorInformation, errorInformation, FspiopError, type FspiopErrorDefinition } from '@mojafast/fspiop';

/**
 * Every error the ALS produces, in one table: the FSPIOP code (from @mojafast/fspiop), the HTTP status
 * when it is answered synchronously (undefined: only ever sent in an error callback), and the detail
 * template appended to the FSPIOP description. README.md "Errors" lists the same table; a test keeps
 * them in step.
 */
export interface AlsErrorEntry {
  readonly fspiop: FspiopErrorDefinition;
  readonly status: number | undefined;
  readonly template: string;
}

function catalogue<const T extends Record<string, AlsErrorEntry>>(table: T): Readonly<T> {
  for (const entry of Object.values(table)) Object.freeze(entry);
  return Object.freeze(table);
}

export const AlsErrors = catalogue({
  MISSING_HEADER: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '/header/{header}' },
  MALFORMED_HEADER: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: '/header/{header} is malformed' },
  UNACCEPTABLE_VERSION: {
    fspiop: FspiopError.UNACCEPTABLE_VERSION,
    status: 406,
    template: '{header} version {version} is not supported',
  },
  UNKNOWN_URI: { fspiop: FspiopError.UNKNOWN_URI, status: 404, template: '{method} {path}' },
  MALFORMED_URI: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: 'path {path} is not valid' },
  INVALID_PARTY_ID_TYPE: { fspiop: FspiopError.VALIDATION_ERROR, status: 400, template: '/params/Type {type}' },
  PATH_PARAM_TOO_LONG: {
    fspiop: FspiopError.VALIDATION_ERROR,
    status: 400,
    template: '/params/{param} must NOT have more than {limit} characters',
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
    template: 'FSPIOP-Source {source} is not an active participant',
  },
  MALFORMED_BODY: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: 'body is not valid JSON' },
  BODY_TOO_LARGE: { fspiop: FspiopError.TOO_LARGE_PAYLOAD, status: 400, template: 'body exceeds {limit} bytes' },
  BODY_MISSING_ELEMENT: { fspiop: FspiopError.MISSING_ELEMENT, status: 400, template: '{path}' },
  BODY_MALFORMED_ELEMENT: { fspiop: FspiopError.MALFORMED_SYNTAX, status: 400, template: '{path} {reason}' },
  BODY_INVALID: { fspiop: FspiopError.VALIDATION_ERROR, status: 400, template: '{path} {reason}' },
  INVALID_PARTY_ID: { fspiop: FspiopError.MALFORMED_SYNTAX, status: undefined, template: '{type} identifier {id}' },
  PARTY_NOT_FOUND: { fspiop: FspiopError.PARTY_NOT_FOUND, status: undefined, template: '{type}/{id}' },
  DESTINATION_NOT_FOUND: {
    fspiop: FspiopError.PARTY_NOT_FOUND,
    status: undefined,
    template: 'FSPIOP-Destination {destination} is not an active participant',
  },
  CALLBACK_DESTINATION_UNKNOWN: {
    fspiop: FspiopError.DESTINATION_FSP_ERROR,
    status: undefined,
    template: 'FSPIOP-Destination {destination} is missing or not an active participant',
  },
  UNKNOWN_FSP: {
    fspiop: FspiopError.DESTINATION_FSP_ERROR,
    status: undefined,
    template: 'FSP {fspId} is not an active participant',
  },
  NO_ORACLE: { fspiop: FspiopError.ADD_PARTY_INFO_ERROR, status: undefined, template: 'no oracle for {type}' },
  NO_DEFAULT_ORACLE: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    status: undefined,
    template: 'several oracles for {type} and none is the default',
  },
  ORACLE_FAILED: { fspiop: FspiopError.INTERNAL_SERVER_ERROR, status: undefined, template: 'oracle: {reason}' },
  SWITCH_FAILED: { fspiop: FspiopError.INTERNAL_SERVER_ERROR, status: undefined, template: 'central-ledger: {reason}' },
  SOURCE_UNREACHABLE: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    status: 500,
    template: 'central-ledger: {reason}; the error callback endpoint of {source} is unknown',
  },
  DESTINATION_UNREACHABLE: {
    fspiop: FspiopError.DESTINATION_COMMUNICATION_ERROR,
    status: undefined,
    template: '{destination}: {reason}',
  },
  NO_ENDPOINT: {
    fspiop: FspiopError.DESTINATION_COMMUNICATION_ERROR,
    status: undefined,
    template: '{destination} has no {endpoint} endpoint',
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
    super(`${entry.fspiop.code} ${entry.fspiop.description} - ${fill(entry.template, values)}`);
    this.name = 'AlsError';
    this.entry = entry;
  }

  get status(): number {
    return this.entry.status ?? this.entry.fspiop.httpStatus;
  }

  information(): ErrorInformation {
    return errorInformation(this.entry.fspiop, fill(this.entry.template, this.values));
  }
}
