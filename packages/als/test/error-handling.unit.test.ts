import { readFileSync } from 'node:fs';
import type { ErrorInformation } from '@mojafast/fspiop';
import { describe, expect, it } from 'vitest';
import { causeOf, EXTENSION_VALUE_MAX, withErrorHandling } from '../src/fspiop/error-handling.js';

// What central-services-error-handling 13.1.6's toApiErrorObject(ERROR_HANDLING) wrote for each error and
// options, recorded from the original's install (fixtures/error-handling-13.1.6.json, its provenance there).
interface Recorded {
  readonly error: string;
  readonly options: { includeCauseExtension: boolean; truncateExtensions: boolean };
  readonly stack: string;
  readonly body: { errorInformation: ErrorInformation };
}
const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/error-handling-13.1.6.json', import.meta.url), 'utf8'),
) as { cases: Recorded[] };

/** Each recorded error as the ALS holds it before the options apply: its code, description, extensions. */
const given: Record<string, ErrorInformation> = {
  PARTY_NOT_FOUND: { errorCode: '3204', errorDescription: 'Party not found' },
  'ADD_PARTY_INFO_ERROR with a party extension': {
    errorCode: '3003',
    errorDescription: 'Add Party information error',
    extensionList: { extension: [{ key: 'MSISDN', value: '123' }] },
  },
  'an extension longer than 128': {
    errorCode: '3003',
    errorDescription: 'Add Party information error',
    extensionList: { extension: [{ key: 'MSISDN', value: 'x'.repeat(200) }] },
  },
  'a cause extension given': {
    errorCode: '3003',
    errorDescription: 'Add Party information error',
    extensionList: {
      extension: [
        { key: 'cause', value: 'upstream' },
        { key: '_cause', value: 'u2' },
        { key: 'MSISDN', value: '1' },
      ],
    },
  },
};

describe('ERROR_HANDLING in error callbacks, as central-services-error-handling applies it', () => {
  it.each(recorded.cases.map((c) => [c.error, JSON.stringify(c.options), c] as const))(
    '%s with %s',
    (_name, _options, c) => {
      const information = given[c.error] as ErrorInformation;
      expect(withErrorHandling(information, c.options, () => c.stack)).toEqual(c.body.errorInformation);
    },
  );

  it('leaves an error without extensions untouched under the defaults (no copy)', () => {
    const information = given.PARTY_NOT_FOUND as ErrorInformation;
    const defaults = { includeCauseExtension: false, truncateExtensions: true };
    expect(withErrorHandling(information, defaults, () => 'never')).toBe(information);
  });

  it('names the error as the library does, then the frames of the error the flow failed with', () => {
    const information = given.PARTY_NOT_FOUND as ErrorInformation;
    expect(causeOf(information, undefined)).toBe('FSPIOPError: Party not found');
    const cause = causeOf(information, new Error('socket hang up'));
    expect(cause.split('\n')[0]).toBe('FSPIOPError: Party not found');
    expect(cause.split('\n')[1]).toMatch(/^ {4}at /);
    const truncated = withErrorHandling(
      information,
      { includeCauseExtension: true, truncateExtensions: true },
      () => cause,
    );
    expect(truncated.extensionList?.extension).toEqual([{ key: 'cause', value: cause.slice(0, EXTENSION_VALUE_MAX) }]);
  });
});
