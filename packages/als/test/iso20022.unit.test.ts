import { readFileSync } from 'node:fs';
import { isoPartyBody } from '@mojafast/sim';
import { describe, expect, it } from 'vitest';
import {
  isoBodySchemaNames as extractedNames,
  extractIsoSchemas,
  isoGeneratedFile,
  originalYaml,
  readOriginalYaml,
  sourceName,
} from '../scripts/iso20022-schemas.js';
import { AlsError } from '../src/fspiop/errors.js';
import { checkHeaders } from '../src/fspiop/ingress.js';
import { isoPartiesErrorBody, ulid } from '../src/fspiop/iso20022.js';
import { isoBodySchemaNames, loadFspiopSchemas, shippedIsoSchemas, shippedSchemas } from '../src/fspiop/schemas.js';

// ISO 20022 mode (API_TYPE=iso20022) at the edge: the media types it admits, the ISO bodies of PUT /parties,
// and the Hub's own /parties error body. The parity corpus (packages/als-parity, `iso.` cases) holds the same
// behaviours against the recorded original; these name the rules.

const iso = (resource: string, version = '2.0') =>
  `application/vnd.interoperability.iso20022.${resource}+json;version=${version}`;
const fspiop = (resource: string) => `application/vnd.interoperability.${resource}+json;version=1.1`;
const date = new Date().toUTCString();

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof AlsError) return `${error.information().errorCode} ${error.information().errorDescription}`;
    throw error;
  }
  return 'accepted';
}

describe('ISO 20022 media types', () => {
  it('admits the ISO media types on /parties and /participants, and refuses the FSPIOP ones', () => {
    for (const resource of ['parties', 'participants'] as const) {
      const headers = { accept: iso(resource), 'content-type': iso(resource), date, 'fspiop-source': 'payerfsp' };
      expect(checkHeaders('GET', resource, headers, '1.1', 'iso20022').version).toBe('2.0');
      expect(
        refusal(() => checkHeaders('GET', resource, { ...headers, accept: fspiop(resource) }, '1.1', 'iso20022')),
      ).toBe('3101 Malformed syntax - Invalid accept header');
      expect(
        refusal(() =>
          checkHeaders('PUT', resource, { ...headers, 'content-type': fspiop(resource) }, '1.1', 'iso20022'),
        ),
      ).toBe('3101 Malformed syntax - Invalid content-type header');
    }
  });

  it('leaves FSPIOP mode as it was: the ISO media types are refused there', () => {
    const headers = { accept: iso('parties'), 'content-type': iso('parties'), date };
    expect(refusal(() => checkHeaders('GET', 'parties', headers, '1.1'))).toBe(
      '3101 Malformed syntax - Invalid accept header',
    );
  });
});

describe('ISO 20022 bodies of PUT /parties', () => {
  const schemas = loadFspiopSchemas(shippedSchemas, { iso20022: shippedIsoSchemas });
  const agent = (id: string) => ({ Agt: { FinInstnId: { Othr: { Id: id } } } });
  const body = {
    Assgnmt: { MsgId: 'm1', CreDtTm: '2024-10-29T16:25:11.916Z', Assgnr: agent('payeefsp'), Assgne: agent('payerfsp') },
    Rpt: { OrgnlId: 'MSISDN/1', Vrfctn: true },
  };

  it('accepts a report, with properties the schema does not name too (its file has no additionalProperties: false)', () => {
    const put = 'GetParties_IdentificationVerificationReportV03';
    expect(refusal(() => schemas.validate('2.0', put, body))).toBe('accepted');
    expect(refusal(() => schemas.validate('2.0', put, { ...body, Foo: 1 }))).toBe('accepted');
    expect(refusal(() => schemas.validate('2.0', put, {}))).toBe(
      "3102 Missing mandatory element - /requestBody must have required property 'Assgnmt'",
    );
    expect(
      refusal(() => schemas.validate('2.0', put, { ...body, Assgnmt: { ...body.Assgnmt, MsgId: 'x'.repeat(36) } })),
    ).toBe('3100 Generic validation error - /requestBody/Assgnmt/MsgId must NOT have more than 35 characters');
  });

  it('accepts an error report without a reason, and refuses an FSPIOP errorInformation body', () => {
    const error = 'GetPartiesError_IdentificationVerificationReportV03';
    expect(refusal(() => schemas.validate('2.0', error, body))).toBe('accepted');
    expect(refusal(() => schemas.validate('1.1', error, { errorInformation: { errorCode: '3204' } }))).toBe(
      "3102 Missing mandatory element - /requestBody must have required property 'Assgnmt'",
    );
  });

  it("admit the payee simulator's ISO answers (bench:als --api-type iso20022 sends them)", () => {
    const answer = JSON.parse(isoPartyBody('MSISDN', '123456789', 'payeefsp', 'payerfsp', 'm1'));
    expect(refusal(() => schemas.validate('1.1', 'GetParties_IdentificationVerificationReportV03', answer))).toBe(
      'accepted',
    );
  });

  it('are not loaded in FSPIOP mode', () => {
    expect(() => loadFspiopSchemas().validate('2.0', 'GetParties_IdentificationVerificationReportV03', body)).toThrow(
      /no schema/,
    );
  });

  it('come from the original ISO schema file the script extracts them from', () => {
    expect(extractedNames).toEqual([...isoBodySchemaNames]);
    const yaml = readOriginalYaml();
    // The original's file is not in this repository: checked where the original is installed (als-original.sh).
    if (yaml === undefined) {
      process.stdout.write(`skipped the staleness check: ${originalYaml} absent\n`);
      return;
    }
    const committed: unknown = JSON.parse(readFileSync(isoGeneratedFile, 'utf8'));
    expect(committed).toEqual(extractIsoSchemas(yaml, sourceName));
  });
});

describe("the Hub's ISO 20022 /parties error body", () => {
  it('carries the code, Hub to requester, with new ULIDs and the time, in the original field order', () => {
    const before = Date.now();
    const text = isoPartiesErrorBody({ errorCode: '3204', errorDescription: 'Party not found' }, 'Hub', 'payerfsp');
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(['Rpt', 'Assgnmt']);
    expect(parsed).toEqual({
      Rpt: { Rsn: { Cd: '3204' }, OrgnlId: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), Vrfctn: false },
      Assgnmt: {
        MsgId: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
        CreDtTm: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        Assgnr: { Agt: { FinInstnId: { Othr: { Id: 'Hub' } } } },
        Assgne: { Agt: { FinInstnId: { Othr: { Id: 'payerfsp' } } } },
      },
    });
    expect(Date.parse(parsed.Assgnmt.CreDtTm)).toBeGreaterThanOrEqual(before - 1);
    expect(parsed.Rpt.OrgnlId).not.toBe(parsed.Assgnmt.MsgId);
  });

  it('ULIDs encode the time and grow within one millisecond', () => {
    const now = Date.UTC(2026, 10, 28);
    const ids = Array.from({ length: 50 }, () => ulid(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const time = [...(ids[0] as string).slice(0, 10)].reduce(
      (n, c) => n * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c),
      0,
    );
    expect(time).toBe(now);
  });
});
