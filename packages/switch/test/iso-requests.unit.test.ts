import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { completedTimestamp, newSecret, transferBody } from '../src/bodies.js';
import { fulfilMessage, prepareMessage } from '../src/envelope.js';
import { fspRequest } from '../src/http-front.js';
import { deserializeIlpPrepare, interledgerTime, newUlid, serializeIlpPrepare } from '../src/ilp-packet.js';
import { Iso20022Requests, minorUnits, pacs002, pacs002Error, pacs009 } from '../src/iso-requests.js';

// The packet ilp-packet 2.2.0 (the library ml-api-adapter's transformer decodes with) serialises for these fields:
// amount 10050, expiry 2026-12-06T04:05:06.789Z, condition bytes 0..31, destination g.payee, 200 bytes of 'x'
// (a data length over 127, so a two-byte length determinant inside a three-byte one).
const REFERENCE =
  'DIIBCwAAAAAAACdCMjAyNjEyMDYwNDA1MDY3ODkAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHwdnLnBheWVlgch4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eA';

describe('ILP v4 prepare packet (OER)', () => {
  const fields = {
    amount: 10050n,
    expiresAt: new Date('2026-12-06T04:05:06.789Z'),
    executionCondition: Buffer.from(Array.from({ length: 32 }, (_, i) => i)),
    destination: 'g.payee',
    data: Buffer.from('x'.repeat(200)),
  };

  it('serialises as the reference library does', () => {
    expect(serializeIlpPrepare(fields).toString('base64url')).toBe(REFERENCE);
  });

  it('reads back what it wrote', () => {
    expect(deserializeIlpPrepare(Buffer.from(REFERENCE, 'base64url'))).toEqual(fields);
    const short = { ...fields, data: Buffer.from('{}') };
    expect(deserializeIlpPrepare(serializeIlpPrepare(short))).toEqual(short);
  });

  it('refuses a condition that is not 32 bytes and a packet of another type', () => {
    expect(() => serializeIlpPrepare({ ...fields, executionCondition: Buffer.alloc(31) })).toThrow(/32 bytes/);
    expect(() => deserializeIlpPrepare(Buffer.from([13, 0]))).toThrow(/not an ILP prepare/);
  });

  it('writes Interledger time in 17 characters', () => {
    expect(interledgerTime(new Date('2027-01-02T03:04:05.006Z'))).toBe('20270102030405006');
  });
});

describe('ISO 20022 requests', () => {
  it('ULIDs: 26 Crockford characters, time first', () => {
    const id = newUlid(Date.UTC(2026, 11, 6));
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newUlid(Date.UTC(2027, 0, 1)) > id).toBe(true);
  });

  it('amounts in minor units', () => {
    expect(minorUnits('100')).toBe(10000n);
    expect(minorUnits('90.5')).toBe(9050n);
    expect(() => minorUnits('1.234')).toThrow(/decimals/);
  });

  it('POST /transfers: a pacs.008 whose ILP packet carries the condition, amount and expiry; a resend is the same bytes', () => {
    const secret = newSecret();
    const body = transferBody(
      { payer: 'pr', payee: 'pe', currency: 'USD', amount: '100', transferId: newUlid() },
      secret,
    );
    const iso = new Iso20022Requests();
    const request = fspRequest(prepareMessage('', body));
    const first = iso.convert(request);
    expect(first.headers['content-type']).toBe('application/vnd.interoperability.iso20022.transfers+json;version=2.0');
    expect(first.headers.accept).toBe('application/vnd.interoperability.iso20022.transfers+json;version=2');
    const pacs = JSON.parse(first.body as string);
    expect(pacs.CdtTrfTxInf.PmtId.TxId).toBe(body.transferId);
    expect(pacs.CdtTrfTxInf.IntrBkSttlmAmt).toEqual({ Ccy: 'USD', ActiveCurrencyAndAmount: '100' });
    const packet = deserializeIlpPrepare(Buffer.from(pacs.CdtTrfTxInf.VrfctnOfTerms.IlpV4PrepPacket, 'base64url'));
    expect(packet.executionCondition.toString('base64url')).toBe(secret.condition);
    expect(packet.amount).toBe(10000n);
    expect(packet.expiresAt.toISOString()).toBe(body.expiration);
    expect(iso.convert(request).body).toBe(first.body);
  });

  it("keeps the payer's layout: a spaced FSPIOP body gives a spaced pacs.008", () => {
    const body = transferBody({ payer: 'pr', payee: 'pe', currency: 'USD', amount: '1' }, newSecret());
    const converted = new Iso20022Requests().convert(fspRequest(prepareMessage('', body, undefined, 2)));
    expect(converted.body).toContain('\n  "GrpHdr"');
  });

  it('PUT /transfers/{id}: pacs.002 with the fulfilment and status', () => {
    const fulfilment = randomBytes(32).toString('base64url');
    const converted = new Iso20022Requests().convert(
      fspRequest(
        fulfilMessage('', 'T', 'pe', 'pr', {
          fulfilment,
          completedTimestamp: completedTimestamp(),
          transferState: 'RESERVED',
        }),
      ),
    );
    expect(converted.method).toBe('PUT');
    expect(JSON.parse(converted.body as string).TxInfAndSts).toMatchObject({ ExctnConf: fulfilment, TxSts: 'RESV' });
  });

  it('the other forms: pacs.009, an ABORTED pacs.002, the error form', () => {
    const condition = createHash('sha256').update('x').digest('base64url');
    const fx = pacs009({
      commitRequestId: 'C',
      determiningTransferId: 'D',
      initiatingFsp: 'pr',
      counterPartyFsp: 'fx',
      sourceAmount: { currency: 'USD', amount: '100' },
      targetAmount: { currency: 'EUR', amount: '90' },
      condition,
      expiration: '2027-01-01T00:00:00.000Z',
    });
    expect(fx.CdtTrfTxInf).toMatchObject({
      PmtId: { TxId: 'C', EndToEndId: 'D' },
      VrfctnOfTerms: { Sh256Sgntr: condition },
      UndrlygCstmrCdtTrf: { InstdAmt: { Ccy: 'USD', ActiveOrHistoricCurrencyAndAmount: '100' } },
    });
    expect(pacs002({ completedTimestamp: 't', conversionState: 'ABORTED' }).TxInfAndSts).toEqual({
      PrcgDt: { DtTm: 't' },
      TxSts: 'ABOR',
    });
    expect(() => pacs002({ transferState: 'SETTLED' })).toThrow(/no ISO 20022 status/);
    expect(pacs002Error({ errorInformation: { errorCode: '5101', errorDescription: 'no' } }).TxInfAndSts).toEqual({
      StsRsnInf: { Rsn: { Prtry: '5101' }, AddtlInf: 'no' },
    });
  });
});
