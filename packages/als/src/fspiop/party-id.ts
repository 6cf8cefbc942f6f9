/**
 * Party identifier rules, one table, as the original's src/lib/validators.js (v17.16): every {ID} and
 * {SubId} is 1-128 printable characters without whitespace, control characters, curly braces, angle
 * brackets, backticks or backslashes; a type whose format an international standard fixes has its own
 * pattern on top (MSISDN: E.164 digits with an optional plus; EMAIL; IBAN: ISO 13616). A failure is the
 * original's 3101 message, sent after the 202 in an error callback.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const generalPattern = /^[^\s\x00-\x1f{}<>`\\]{1,128}$/;

export const partyIdPatterns: Readonly<Record<string, RegExp>> = Object.freeze({
  MSISDN: /^\+?\d{1,30}$/,
  EMAIL: /^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/,
  IBAN: /^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/,
});

/**
 * The party ID types the original adds with FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE (its
 * src/interface/thirdparty API definition; central-services-shared Enum.Accounts.PartyAccountTypes).
 * They have no pattern of their own: the general one applies.
 */
export const extendedPartyIdTypes: readonly string[] = Object.freeze(['CONSENT', 'THIRD_PARTY_LINK']);

/** FSPIOP v1.1's party ID types (section 7.5.6), the PartyIdType enum of its API definition. */
export const fspiopPartyIdTypes: readonly string[] = Object.freeze([
  'MSISDN',
  'EMAIL',
  'PERSONAL_ID',
  'BUSINESS',
  'DEVICE',
  'ACCOUNT_ID',
  'IBAN',
  'ALIAS',
]);

/**
 * Every party ID type an oracle can be registered for: FSPIOP v1.1's (section 7.5.6) and the extended ones.
 * The original's admin document lists exactly these in its PartyIdType enum, and its partyIdType seed holds
 * exactly these rows.
 */
export const oraclePartyIdTypes: readonly string[] = Object.freeze([...fspiopPartyIdTypes, ...extendedPartyIdTypes]);

function safeStringProblem(value: string, label: 'ID' | 'SubId'): string | undefined {
  if (value.length === 0) return `${label} parameter is required and must be a string`;
  if (value.length > 128) {
    return `${label} parameter exceeds maximum length of 128 characters (got ${value.length})`;
  }
  if (!generalPattern.test(value)) {
    return `Invalid ${label} parameter: '${value}'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes`;
  }
  return undefined;
}

/** Why a party's {ID} (and {SubId}) is refused, in the original's words; undefined when it is valid. */
export function partyIdProblem(type: string, id: string, subId?: string): string | undefined {
  const idProblem = safeStringProblem(id, 'ID');
  if (idProblem !== undefined) return idProblem;
  const pattern = partyIdPatterns[type];
  if (pattern !== undefined && !pattern.test(id)) return `Invalid ${type} identifier: '${id}'`;
  return subId === undefined ? undefined : safeStringProblem(subId, 'SubId');
}
