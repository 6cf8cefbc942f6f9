import { AlsError } from './errors.js';
import { isHttpDate } from './http-date.js';
import { type ApiType, answerVersion, type FspiopVersion } from './versions.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface IngressFacts {
  /** FSPIOP-Source; '' when absent (checkSourceHeader answers that, after the path and body checks). */
  readonly source: string;
  readonly destination: string | undefined;
  /** The version errors and Hub answers to this requester use. */
  readonly version: FspiopVersion;
  /** The Content-Type's version (PUT/POST); the body schema follows it. */
  readonly bodyVersion: FspiopVersion;
}

function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value[0];
  return value;
}

/** The Accept and Content-Type versions the original accepts (its PROTOCOL_VERSIONS.*.VALIDATELIST). */
const acceptVersions = new Set(['1', '1.0', '1.1', '2', '2.0']);
const contentTypeVersions = new Set(['1.1', '1.0', '2.0']);

type Resource = 'parties' | 'participants';

/**
 * The original's header patterns (central-services-shared src/util/headerValidation): an Accept is one or more
 * media types of the resource joined by commas without spaces, each with an optional version; a Content-Type
 * is exactly one, with a major.minor version. In ISO 20022 mode the media types are
 * `application/vnd.interoperability.iso20022.{resource}+json`, on /parties and /participants alike.
 */
function patternsOf(api: ApiType) {
  const infix = api === 'iso20022' ? 'iso20022\\.' : '';
  const acceptPart = (resource: Resource) =>
    `application/vnd\\.interoperability\\.${infix}${resource}\\+json(?:\\s?;\\s?version=(\\d+(?:\\.\\d+)?))?`;
  const of = (resource: Resource) => ({
    accept: new RegExp(`^${acceptPart(resource)}(?:,${acceptPart(resource)})*$`),
    part: new RegExp(acceptPart(resource)),
    contentType: new RegExp(
      `^application/vnd\\.interoperability\\.${infix}${resource}\\+json\\s?;\\s?version=(\\d+\\.\\d+)$`,
    ),
  });
  return {
    parties: of('parties'),
    participants: of('participants'),
    /**
     * What an Accept header says, by header text: null when it does not match the pattern, else the first
     * supported version (undefined: it names none the original supports, a 406). FSPs send a handful of
     * distinct values; the bound only keeps a client sending ever new ones from growing the map. One map
     * per resource, keyed by the header as received: a key joining the two was a string built and hashed
     * per request.
     */
    acceptSeen: {
      parties: new Map<string, string | null | undefined>(),
      participants: new Map<string, string | null | undefined>(),
    },
    contentTypeSeen: { parties: new Map<string, string | null>(), participants: new Map<string, string | null>() },
  };
}

type Patterns = ReturnType<typeof patternsOf>;
const patterns: Record<ApiType, Patterns> = { fspiop: patternsOf('fspiop'), iso20022: patternsOf('iso20022') };
const seenMax = 256;

function acceptVersionOf(p: Patterns, resource: Resource, header: string): string | null | undefined {
  const seen = p.acceptSeen[resource];
  if (seen.has(header)) return seen.get(header);
  let result: string | null | undefined = null;
  if (p[resource].accept.test(header)) {
    result = undefined;
    for (const part of header.split(',')) {
      const version = p[resource].part.exec(part)?.[1];
      if (version !== undefined && acceptVersions.has(version)) {
        result = version;
        break;
      }
    }
  }
  if (seen.size >= seenMax) seen.clear();
  seen.set(header, result);
  return result;
}

function contentTypeVersionOf(p: Patterns, resource: Resource, header: string): string | null {
  const seen = p.contentTypeSeen[resource];
  const known = seen.get(header);
  if (known !== undefined) return known;
  const version = p[resource].contentType.exec(header)?.[1] ?? null;
  if (seen.size >= seenMax) seen.clear();
  seen.set(header, version);
  return version;
}

/**
 * The synchronous FSPIOP header checks of the original, in its order and words (central-services-shared
 * src/util/hapi/plugins/headerValidation.js): Accept on GET/POST/DELETE, and on a PUT that carries one
 * (missing 3102 "Accept is required", not the resource's FSPIOP media types 3101 "Invalid accept header", no
 * supported version 406 3001); Date (missing 3102, not an IMF-fixdate 3101); Content-Type on every method,
 * GET and DELETE included (missing 3102, not the resource's media type with a major.minor version 3101, an
 * unsupported version 406 3001). FSPIOP-Source is the original's OpenAPI check, after the path and the body:
 * checkSourceHeader. `api`: the media types of the API served.
 */
export function checkHeaders(
  method: string,
  resource: Resource,
  headers: Headers,
  hubVersion: FspiopVersion,
  api: ApiType = 'fspiop',
): IngressFacts {
  const p = patterns[api];
  const accept = single(headers, 'accept');
  let version = hubVersion;
  const wantsAccept = method !== 'PUT';
  if (wantsAccept || accept !== undefined) {
    if (accept === undefined) throw new AlsError('HEADER_REQUIRED', { text: 'Accept is required' });
    const acceptVersion = acceptVersionOf(p, resource, accept);
    if (acceptVersion === null) throw new AlsError('HEADER_INVALID', { text: 'Invalid accept header' });
    if (acceptVersion === undefined) throw new AlsError('ACCEPT_VERSION_UNSUPPORTED');
    version = answerVersion(acceptVersion, hubVersion);
  }

  const date = single(headers, 'date');
  if (date === undefined) throw new AlsError('HEADER_REQUIRED', { text: 'Missing required date header' });
  if (!isHttpDate(date)) throw new AlsError('HEADER_INVALID', { text: 'Invalid date header' });

  const type = single(headers, 'content-type');
  if (type === undefined) throw new AlsError('HEADER_REQUIRED', { text: 'Content-type is required' });
  const typeVersion = contentTypeVersionOf(p, resource, type);
  if (typeVersion === null) throw new AlsError('HEADER_INVALID', { text: 'Invalid content-type header' });
  if (!contentTypeVersions.has(typeVersion)) throw new AlsError('CONTENT_TYPE_VERSION_UNSUPPORTED');
  const bodyVersion = answerVersion(typeVersion, hubVersion);
  // A PUT is answered in the version it wrote.
  if (!wantsAccept) version = bodyVersion;

  return { source: single(headers, 'fspiop-source') ?? '', destination: destinationOf(headers), version, bodyVersion };
}

function destinationOf(headers: Headers): string | undefined {
  const value = single(headers, 'fspiop-destination');
  return value === '' ? undefined : value;
}

/**
 * FSPIOP-Source as the original's OpenAPI definition checks it (an FspId, 1-32 characters), in its words
 * (openapi-backend's ajv message under `/header`). Called after the path and body checks, as there.
 */
export function checkSourceHeader(headers: Headers): void {
  const source = single(headers, 'fspiop-source');
  if (source === undefined)
    throw new AlsError('PARAM_MISSING', { path: '/header', reason: "must have required property 'fspiop-source'" });
  if (source.length > 32)
    throw new AlsError('PARAM_INVALID', {
      path: '/header/fspiop-source',
      reason: 'must NOT have more than 32 characters',
    });
  if (source.length === 0)
    throw new AlsError('PARAM_INVALID', {
      path: '/header/fspiop-source',
      reason: 'must NOT have fewer than 1 characters',
    });
}
