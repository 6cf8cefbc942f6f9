/**
 * FSPIOP media types: `application/vnd.interoperability.{resource}+json;version={major}[.{minor}]`
 * (FSPIOP API v1.1 section 3.2.4.2 Accept, 3.2.4.3 Content-Type).
 */
export type FspiopVersion = '1.1' | '2.0';

/** The version the switch answers in: major 2 → 2.0, major 1 → 1.1, none → the hub's default. */
export function answerVersion(version: string | undefined, fallback: FspiopVersion): FspiopVersion {
  if (version === undefined) return fallback;
  return version.startsWith('2') ? '2.0' : '1.1';
}

/**
 * The API served (the original's API_TYPE): `iso20022` names the media types
 * `application/vnd.interoperability.iso20022.{resource}+json` instead.
 */
export type ApiType = 'fspiop' | 'iso20022';

export function contentType(resource: string, version: FspiopVersion, api: ApiType = 'fspiop'): string {
  return `application/vnd.interoperability.${api === 'iso20022' ? 'iso20022.' : ''}${resource}+json;version=${version}`;
}
