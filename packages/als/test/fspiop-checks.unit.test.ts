import { describe, expect, it } from 'vitest';
import { AlsError } from '../src/fspiop/errors.js';
import { loadFspiopSchemas } from '../src/fspiop/schemas.js';
import { checkCurrency, checkId, checkQuery, maxPartyIdLength, PartyIdTypes } from '../src/http/fspiop-checks.js';

/** The FSPIOP error a check throws: code and description, as the answer carries them. */
function refusal(check: () => unknown) {
  try {
    check();
  } catch (error) {
    if (error instanceof AlsError) return error.information();
    throw error;
  }
  throw new Error('the check passed');
}

const schemas = loadFspiopSchemas();

describe('FSPIOP request checks', () => {
  it('serves the API definition’s party ID types of each version, and the extended ones only when given', () => {
    const plain = new PartyIdTypes(schemas, new Set());
    const extended = new PartyIdTypes(schemas, new Set(['CONSENT']));
    expect(() => plain.check('MSISDN', '1.1')).not.toThrow();
    expect(() => extended.check('CONSENT', '1.1')).not.toThrow();
    expect(() => extended.check('CONSENT', '2.0')).not.toThrow();
    expect(extended.of('1.1').has('MSISDN')).toBe(true);
    expect(refusal(() => plain.check('CONSENT', '1.1'))).toMatchObject({ errorCode: '3100' });
    // Without extended types the API's own set is served as it is, not copied.
    expect(plain.of('1.1')).toBe(schemas.partyIdTypes['1.1']);
  });

  it('checks an {ID} as the original’s OpenAPI definition: the length first, then the pattern, in ajv’s words', () => {
    expect(() => checkId('x'.repeat(maxPartyIdLength))).not.toThrow();
    expect(refusal(() => checkId(`{${'x'.repeat(maxPartyIdLength)}`))).toMatchObject({ errorCode: '3100' });
    expect(refusal(() => checkId('a b'))).toEqual({
      errorCode: '3100',
      errorDescription: 'Generic validation error - /path/ID must match pattern "^[^\\s{}]+$"',
    });
  });

  it('refuses query parameters beyond ?currency= (served on a GET only) with the original’s 3103', () => {
    expect(() => checkQuery({ currency: 'USD' }, true)).not.toThrow();
    const tooMany = {
      errorCode: '3103',
      errorDescription: 'Too many elements - /query must NOT have additional properties',
    };
    expect(refusal(() => checkQuery({ currency: 'USD' }, false))).toEqual(tooMany);
    expect(refusal(() => checkQuery({ page: '2' }, true))).toEqual(tooMany);
    expect(checkCurrency('USD', schemas.currencies)).toBe('USD');
    expect(checkCurrency(undefined, schemas.currencies)).toBeUndefined();
    expect(refusal(() => checkCurrency(['USD', 'EUR'], schemas.currencies))).toEqual({
      errorCode: '3100',
      errorDescription: 'Generic validation error - /query/currency must be one ISO 4217 currency code',
    });
  });
});
