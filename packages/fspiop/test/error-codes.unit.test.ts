import { describe, expect, it } from 'vitest';
import { errorInformation, FspiopError, fspiopErrorByCode } from '../src/index.js';

describe('FSPIOP error catalogue', () => {
  it('has one entry per code, each a four-digit code with a status that matches its category', () => {
    const codes = Object.values(FspiopError).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const entry of Object.values(FspiopError)) {
      expect(entry.code).toMatch(/^[1-5]\d{3}$/);
      // Server and communication errors (1xxx, 2xxx) are 5xx; client, payer and payee errors are 4xx.
      expect(entry.httpStatus >= 500).toBe(entry.code < '3000');
      expect(fspiopErrorByCode(entry.code)).toBe(entry);
    }
  });

  it('keeps the statuses the ALS ingress answers with', () => {
    expect(FspiopError.MISSING_ELEMENT.httpStatus).toBe(400);
    expect(FspiopError.UNACCEPTABLE_VERSION.httpStatus).toBe(406);
    expect(FspiopError.UNKNOWN_URI.httpStatus).toBe(404);
  });

  it('qualifies a description with a detail and keeps it within 128 characters', () => {
    expect(errorInformation(FspiopError.MISSING_ELEMENT, '/header/date')).toEqual({
      errorCode: '3102',
      errorDescription: 'Missing mandatory element - /header/date',
    });
    // Cut at 128 with no ellipsis, as central-services-error-handling's factory.js cuts it.
    const long = `Malformed syntax - ${'x'.repeat(300)}`;
    expect(errorInformation(FspiopError.MALFORMED_SYNTAX, 'x'.repeat(300)).errorDescription).toBe(long.slice(0, 128));
  });
});
