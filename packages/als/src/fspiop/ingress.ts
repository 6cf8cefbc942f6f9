import { AlsError } from './errors.js';
import { isHttpDate } from './http-date.js';
import {
  acceptVersions,
  answerVersion,
  contentTypeVersions,
  type FspiopVersion,
  parseAccept,
  parseMediaType,
} from './versions.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface IngressFacts {
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
  return value === '' ? undefined : value;
}

/**
 * The synchronous FSPIOP header checks of the original, in its order (central-services-shared
 * src/util/hapi/plugins/headerValidation.js, then its OpenAPI validation for FSPIOP-Source): Accept on
 * GET/POST/DELETE (missing 3102, not an FSPIOP media type for the resource 3101, unsupported version 406
 * 3001); Date (missing 3102, not an IMF-fixdate 3101); Content-Type on every method, GET and DELETE
 * included (missing 3102, not an FSPIOP media type with a version for the resource 3101, unsupported
 * version 406 3001); FSPIOP-Source (missing 3102).
 */
export function checkHeaders(
  method: string,
  resource: 'parties' | 'participants',
  headers: Headers,
  hubVersion: FspiopVersion,
): IngressFacts {
  const wantsAccept = method !== 'PUT';
  let version = hubVersion;
  if (wantsAccept) {
    const accept = single(headers, 'accept');
    if (accept === undefined) throw new AlsError('MISSING_HEADER', { header: 'accept' });
    const parsed = parseAccept(accept, resource);
    if (!parsed) throw new AlsError('MALFORMED_HEADER', { header: 'accept' });
    if (parsed.version !== undefined && !acceptVersions.has(parsed.version))
      throw new AlsError('UNACCEPTABLE_VERSION', { header: 'accept', version: parsed.version });
    version = answerVersion(parsed.version, hubVersion);
  }

  const date = single(headers, 'date');
  if (date === undefined) throw new AlsError('MISSING_HEADER', { header: 'date' });
  if (!isHttpDate(date)) throw new AlsError('MALFORMED_HEADER', { header: 'date' });

  const type = single(headers, 'content-type');
  if (type === undefined) throw new AlsError('MISSING_HEADER', { header: 'content-type' });
  const parsed = parseMediaType(type);
  if (!parsed || parsed.resource !== resource || parsed.version === undefined)
    throw new AlsError('MALFORMED_HEADER', { header: 'content-type' });
  if (!contentTypeVersions.has(parsed.version))
    throw new AlsError('UNACCEPTABLE_VERSION', { header: 'content-type', version: parsed.version });
  const bodyVersion = answerVersion(parsed.version, hubVersion);
  // A PUT has no Accept: its source is answered in the version it wrote.
  if (!wantsAccept) version = bodyVersion;

  const source = single(headers, 'fspiop-source');
  if (source === undefined) throw new AlsError('MISSING_HEADER', { header: 'fspiop-source' });
  return { source, destination: single(headers, 'fspiop-destination'), version, bodyVersion };
}
