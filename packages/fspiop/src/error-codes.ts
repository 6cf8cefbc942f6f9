/**
 * The FSPIOP error codes this project sends, in one place (FSPIOP API v1.1 section 7.6, "Error Codes").
 * `httpStatus` is the status a synchronous answer carries when the error is returned directly rather than
 * in an error callback (ALS ingress: 400 for 3xxx validation errors, 406 for 3001, 404 for 3002), as the
 * Mojaloop services answer.
 */
export interface FspiopErrorDefinition {
  readonly code: string;
  readonly description: string;
  readonly httpStatus: number;
}

function define<const T extends Record<string, { code: string; description: string; httpStatus: number }>>(
  table: T,
): { readonly [K in keyof T]: FspiopErrorDefinition } {
  for (const entry of Object.values(table)) Object.freeze(entry);
  return Object.freeze(table);
}

export const FspiopError = define({
  COMMUNICATION_ERROR: { code: '1000', description: 'Communication error', httpStatus: 503 },
  DESTINATION_COMMUNICATION_ERROR: { code: '1001', description: 'Destination communication error', httpStatus: 503 },
  SERVER_ERROR: { code: '2000', description: 'Generic server error', httpStatus: 500 },
  INTERNAL_SERVER_ERROR: { code: '2001', description: 'Internal server error', httpStatus: 500 },
  NOT_IMPLEMENTED: { code: '2002', description: 'Not implemented', httpStatus: 501 },
  SERVICE_CURRENTLY_UNAVAILABLE: { code: '2003', description: 'Service currently unavailable', httpStatus: 503 },
  SERVER_TIMED_OUT: { code: '2004', description: 'Server timed out', httpStatus: 503 },
  SERVER_BUSY: { code: '2005', description: 'Server busy', httpStatus: 503 },
  CLIENT_ERROR: { code: '3000', description: 'Generic client error', httpStatus: 400 },
  /** Mojaloop's extension (central-services-error-handling src/errors.js): the ALS's inter-scheme lookup. */
  PARTY_RESOLUTION_FAILURE: {
    code: '2006',
    description: 'Temporary party resolution failed, try again',
    httpStatus: 503,
  },
  UNACCEPTABLE_VERSION: { code: '3001', description: 'Unacceptable version requested', httpStatus: 406 },
  UNKNOWN_URI: { code: '3002', description: 'Unknown URI', httpStatus: 404 },
  ADD_PARTY_INFO_ERROR: { code: '3003', description: 'Add Party information error', httpStatus: 400 },
  /** Mojaloop's extension (central-services-error-handling src/errors.js): the ALS's failed DELETE. */
  DELETE_PARTY_INFO_ERROR: { code: '3040', description: 'Delete Party information error', httpStatus: 400 },
  VALIDATION_ERROR: { code: '3100', description: 'Generic validation error', httpStatus: 400 },
  MALFORMED_SYNTAX: { code: '3101', description: 'Malformed syntax', httpStatus: 400 },
  MISSING_ELEMENT: { code: '3102', description: 'Missing mandatory element', httpStatus: 400 },
  TOO_MANY_ELEMENTS: { code: '3103', description: 'Too many elements', httpStatus: 400 },
  TOO_LARGE_PAYLOAD: { code: '3104', description: 'Too large payload', httpStatus: 400 },
  INVALID_SIGNATURE: { code: '3105', description: 'Invalid signature', httpStatus: 400 },
  ID_NOT_FOUND: { code: '3200', description: 'Generic ID not found', httpStatus: 404 },
  DESTINATION_FSP_ERROR: { code: '3201', description: 'Destination FSP Error', httpStatus: 400 },
  PAYER_FSP_ID_NOT_FOUND: { code: '3202', description: 'Payer FSP ID not found', httpStatus: 400 },
  PAYEE_FSP_ID_NOT_FOUND: { code: '3203', description: 'Payee FSP ID not found', httpStatus: 400 },
  PARTY_NOT_FOUND: { code: '3204', description: 'Party not found', httpStatus: 404 },
  TRANSFER_ID_NOT_FOUND: { code: '3208', description: 'Transfer ID not found', httpStatus: 404 },
  EXPIRED_ERROR: { code: '3300', description: 'Generic expired error', httpStatus: 400 },
  TRANSFER_EXPIRED: { code: '3303', description: 'Transfer expired', httpStatus: 400 },
  PAYER_ERROR: { code: '4000', description: 'Generic Payer error', httpStatus: 400 },
  PAYER_FSP_INSUFFICIENT_LIQUIDITY: { code: '4001', description: 'Payer FSP insufficient liquidity', httpStatus: 400 },
  PAYER_LIMIT_ERROR: { code: '4200', description: 'Payer limit error', httpStatus: 400 },
  PAYEE_ERROR: { code: '5000', description: 'Generic Payee error', httpStatus: 400 },
  PAYEE_FSP_INSUFFICIENT_LIQUIDITY: { code: '5001', description: 'Payee FSP insufficient liquidity', httpStatus: 400 },
  PAYEE_REJECTED: { code: '5100', description: 'Generic Payee rejection', httpStatus: 400 },
});

export type FspiopErrorName = keyof typeof FspiopError;

const byCode = new Map<string, FspiopErrorDefinition>(Object.values(FspiopError).map((d) => [d.code, d]));

export function fspiopErrorByCode(code: string): FspiopErrorDefinition | undefined {
  return byCode.get(code);
}

/** The `errorInformation` object of an FSPIOP error body (ErrorInformationObject, API section 7.4.3). */
export interface ErrorInformation {
  readonly errorCode: string;
  readonly errorDescription: string;
  readonly extensionList?: { readonly extension: readonly { readonly key: string; readonly value: string }[] };
}

/**
 * Builds the error information for a catalogue entry. A detail is appended after " - ", the way Mojaloop
 * services qualify a description ("Missing mandatory element - /header/date"); errorDescription is at
 * most 128 characters (ErrorDescription, API section 7.3.12), cut there as the originals' error library cuts it
 * (central-services-error-handling factory.js: `substring(0, 128)`, no ellipsis).
 */
export function errorInformation(error: FspiopErrorDefinition, detail?: string): ErrorInformation {
  const text = detail ? `${error.description} - ${detail}` : error.description;
  return { errorCode: error.code, errorDescription: text.length > 128 ? text.slice(0, 128) : text };
}
