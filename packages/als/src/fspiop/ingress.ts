import { AlsError } from './errors.js';
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
 * The synchronous FSPIOP header checks of the original (reference "GET /parties" step 1): a missing
 * Date, FSPIOP-Source, Accept (GET/POST/DELETE) or Content-Type (PUT/POST) is 3102; a header that is not
 * an FSPIOP media type for the resource is 3101; an unsupported version is 406 with 3001.
 */
export function checkHeaders(
  method: string,
  resource: 'parties' | 'participants',
  headers: Headers,
  hubVersion: FspiopVersion,
): IngressFacts {
  const hasBody = method === 'PUT' || method === 'POST';
  const wantsAccept = method !== 'PUT';
  const accept = single(headers, 'accept');
  const type = single(headers, 'content-type');
  const date = single(headers, 'date');
  const source = single(headers, 'fspiop-source');
  if (wantsAccept && accept === undefined) throw new AlsError('MISSING_HEADER', { header: 'accept' });
  if (hasBody && type === undefined) throw new AlsError('MISSING_HEADER', { header: 'content-type' });
  if (date === undefined) throw new AlsError('MISSING_HEADER', { header: 'date' });
  if (source === undefined) throw new AlsError('MISSING_HEADER', { header: 'fspiop-source' });

  let version = hubVersion;
  if (wantsAccept) {
    const parsed = parseAccept(accept as string, resource);
    if (!parsed) throw new AlsError('MALFORMED_HEADER', { header: 'accept' });
    if (parsed.version !== undefined && !acceptVersions.has(parsed.version))
      throw new AlsError('UNACCEPTABLE_VERSION', { header: 'accept', version: parsed.version });
    version = answerVersion(parsed.version, hubVersion);
  }
  let bodyVersion = version;
  if (hasBody) {
    const parsed = parseMediaType(type as string);
    if (!parsed || parsed.resource !== resource || parsed.version === undefined)
      throw new AlsError('MALFORMED_HEADER', { header: 'content-type' });
    if (!contentTypeVersions.has(parsed.version))
      throw new AlsError('UNACCEPTABLE_VERSION', { header: 'content-type', version: parsed.version });
    bodyVersion = answerVersion(parsed.version, hubVersion);
    // A PUT has no Accept: its source is answered in the version it wrote.
    if (!wantsAccept) version = bodyVersion;
  }
  return { source, destination: single(headers, 'fspiop-destination'), version, bodyVersion };
}
