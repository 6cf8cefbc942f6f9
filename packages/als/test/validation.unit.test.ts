import { describe, expect, it } from 'vitest';
import { partyIdPatterns, partyIdProblem } from '../src/fspiop/party-id.js';

// Party-ID validation as account-lookup-service v17.16.1 src/lib/validators.js: one table of patterns per
// type, the general safe-string rule for every {ID} and {SubId}, the original's 3101 messages.

describe('party ID patterns (plain values)', () => {
  it('has a pattern for exactly MSISDN, EMAIL and IBAN', () => {
    expect(Object.keys(partyIdPatterns).sort()).toEqual(['EMAIL', 'IBAN', 'MSISDN']);
  });

  it.each([
    ['MSISDN', '+46730000001'],
    ['MSISDN', '123'],
    ['EMAIL', 'ann.lee+tag@example.co.uk'],
    ['IBAN', 'DE89370400440532013000'],
    ['ALIAS', 'any-printable_chars.!$%'],
    ['PERSONAL_ID', 'x'.repeat(128)],
  ])('accepts %s %s', (type, id) => {
    expect(partyIdProblem(type, id)).toBeUndefined();
  });

  it.each([
    ['MSISDN', '4673abc', "Invalid MSISDN identifier: '4673abc'"],
    ['MSISDN', `+${'1'.repeat(31)}`, `Invalid MSISDN identifier: '+${'1'.repeat(31)}'`],
    ['EMAIL', 'ann@example', "Invalid EMAIL identifier: 'ann@example'"],
    ['EMAIL', 'ann@@example.org', "Invalid EMAIL identifier: 'ann@@example.org'"],
    ['IBAN', 'de89370400440532013000', "Invalid IBAN identifier: 'de89370400440532013000'"],
    ['ALIAS', 'x'.repeat(129), 'ID parameter exceeds maximum length of 128 characters (got 129)'],
    [
      'ALIAS',
      'a{b}',
      "Invalid ID parameter: 'a{b}'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
    [
      'PERSONAL_ID',
      'a b',
      "Invalid ID parameter: 'a b'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
    [
      'ALIAS',
      'a\u0001',
      "Invalid ID parameter: 'a\u0001'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
  ])('refuses %s %j with the original message', (type, id, message) => {
    expect(partyIdProblem(type, id)).toBe(message);
  });

  it('applies the general rule to a SubId', () => {
    expect(partyIdProblem('MSISDN', '123', 'WALLET')).toBeUndefined();
    expect(partyIdProblem('MSISDN', '123', 'a<b>')).toBe(
      "Invalid SubId parameter: 'a<b>'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    );
  });
});
