/**
 * FSPIOP media types: `application/vnd.interoperability.{resource}+json;version={major}[.{minor}]`
 * (FSPIOP API v1.1 section 3.2.4.2 Accept, 3.2.4.3 Content-Type).
 */
export type FspiopVersion = '1.1' | '2.0';

export const acceptVersions = new Set(['1', '1.0', '1.1', '2', '2.0']);
export const contentTypeVersions = new Set(['1.0', '1.1', '2.0']);

const mediaType = /^application\/vnd\.interoperability\.([a-z]+)\+json\s*(?:;\s*version\s*=\s*([0-9.]+)\s*)?$/i;

export interface MediaType {
  readonly resource: string;
  /** As written; undefined when the header names no version. */
  readonly version: string | undefined;
}

/**
 * Parsed media types by header text. FSPs send a handful of distinct values, so nearly every request is
 * a hit; the bound only keeps a client sending ever new values from growing it.
 */
const parsedMediaTypes = new Map<string, MediaType | null>();
const parsedMediaTypesMax = 256;

/** Parses one FSPIOP media type; undefined when it is not one. */
export function parseMediaType(text: string): MediaType | undefined {
  const known = parsedMediaTypes.get(text);
  if (known !== undefined) return known ?? undefined;
  const match = mediaType.exec(text.trim());
  const parsed = match ? { resource: (match[1] as string).toLowerCase(), version: match[2] } : null;
  if (parsedMediaTypes.size >= parsedMediaTypesMax) parsedMediaTypes.clear();
  parsedMediaTypes.set(text, parsed);
  return parsed ?? undefined;
}

/**
 * An Accept header may list several media types (RFC 7231 section 5.3.2); the first FSPIOP one for the
 * resource counts.
 */
export function parseAccept(header: string, resource: string): MediaType | undefined {
  if (!header.includes(',')) {
    const single = parseMediaType(header);
    return single?.resource === resource ? single : undefined;
  }
  for (const part of header.split(',')) {
    const parsed = parseMediaType(part);
    if (parsed?.resource === resource) return parsed;
  }
  return undefined;
}

/** The version the switch answers in: major 2 → 2.0, major 1 → 1.1, none → the hub's default. */
export function answerVersion(version: string | undefined, fallback: FspiopVersion): FspiopVersion {
  if (version === undefined) return fallback;
  return version.startsWith('2') ? '2.0' : '1.1';
}

export function contentType(resource: string, version: FspiopVersion): string {
  return `application/vnd.interoperability.${resource}+json;version=${version}`;
}
