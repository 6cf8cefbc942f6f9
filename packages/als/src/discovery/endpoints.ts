/** central-ledger endpoint types the ALS calls (central-services-shared Enum.EndPoints.FspEndpointTypes). */
export const Endpoint = {
  PARTIES_GET: 'FSPIOP_CALLBACK_URL_PARTIES_GET',
  PARTIES_PUT: 'FSPIOP_CALLBACK_URL_PARTIES_PUT',
  PARTIES_PUT_ERROR: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR',
  PARTIES_SUB_ID_GET: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET',
  PARTIES_SUB_ID_PUT: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT',
  PARTIES_SUB_ID_PUT_ERROR: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR',
  PARTICIPANT_PUT: 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT',
  PARTICIPANT_PUT_ERROR: 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR',
  PARTICIPANT_SUB_ID_PUT: 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT',
  PARTICIPANT_SUB_ID_PUT_ERROR: 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR',
  PARTICIPANT_BATCH_PUT: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT',
  PARTICIPANT_BATCH_PUT_ERROR: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR',
} as const;

export type Resource = 'parties' | 'participants';

/** The endpoint type for a callback (PUT) about a party, by resource, sub-id and error. */
export function callbackEndpoint(resource: Resource, hasSubId: boolean, isError: boolean): string {
  if (resource === 'parties') {
    if (hasSubId) return isError ? Endpoint.PARTIES_SUB_ID_PUT_ERROR : Endpoint.PARTIES_SUB_ID_PUT;
    return isError ? Endpoint.PARTIES_PUT_ERROR : Endpoint.PARTIES_PUT;
  }
  if (hasSubId) return isError ? Endpoint.PARTICIPANT_SUB_ID_PUT_ERROR : Endpoint.PARTICIPANT_SUB_ID_PUT;
  return isError ? Endpoint.PARTICIPANT_PUT_ERROR : Endpoint.PARTICIPANT_PUT;
}

export interface TemplateValues {
  readonly partyIdType?: string;
  readonly partyIdentifier?: string;
  readonly partySubIdOrType?: string | undefined;
  readonly requestId?: string;
}

const placeholder = /\{\{(\w+)\}\}/g;

/** A template split once into literal text and placeholder names (odd indexes), reused per request. */
const compiled = new Map<string, readonly string[]>();

function compile(template: string): readonly string[] {
  let parts = compiled.get(template);
  if (!parts) {
    parts = template.split(placeholder);
    // Endpoint templates come from central-ledger: a handful per FSP. The bound only guards the map.
    if (compiled.size >= 10_000) compiled.clear();
    compiled.set(template, parts);
  }
  return parts;
}

/** Characters a path segment may hold as they are (RFC 3986 pchar: unreserved, sub-delims, ':' and '@'). */
const plainSegment = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]*$/;
const keptDelimiters = /%(?:2B|40|3A|24|26|2C|3B|3D)/g;

/**
 * A path segment for a decoded {Type}, {ID} or {SubId}: the value as it is when a segment may hold it (the
 * original sends `+16135551036` and `a@b.com` unescaped), else percent-encoded, '+', '@', ':' and the
 * sub-delims kept; a '/', '?', '#', '%', whitespace or non-ASCII is escaped, so the URL keeps its shape.
 */
export function encodeSegment(value: string): string {
  if (plainSegment.test(value)) return value;
  return encodeURIComponent(value).replace(keptDelimiters, (escaped) => decodeURIComponent(escaped));
}

/** Fills central-ledger's `{{name}}` placeholders, each value one path segment (encodeSegment). */
export function fillTemplate(template: string, values: TemplateValues): string {
  if (!template.includes('{{')) return template;
  const parts = compile(template);
  let url = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] as string;
    const value = (values as Record<string, string | undefined>)[name];
    url += value === undefined ? `{{${name}}}` : encodeSegment(value);
    url += parts[i + 1] as string;
  }
  return url;
}

/** The request path of a party resource, as FSPIOP-URI carries it. */
export function partyPath(resource: Resource, type: string, id: string, subId: string | undefined, error: boolean) {
  const base = `/${resource}/${encodeSegment(type)}/${encodeSegment(id)}`;
  const withSub = subId === undefined ? base : `${base}/${encodeSegment(subId)}`;
  return error ? `${withSub}/error` : withSub;
}
