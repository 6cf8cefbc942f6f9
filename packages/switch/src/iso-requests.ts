import { createHash } from 'node:crypto';
import type { FspRequest } from './http-front.js';
import { newUlid, serializeIlpPrepare } from './ilp-packet.js';

/**
 * The FSPs' requests in ISO 20022 mode (ml-api-adapter with API_TYPE=iso20022): each FSPIOP request the
 * scenarios make, as an FSP of an ISO scheme makes it instead: POST /transfers a pacs.008 carrying a real ILP v4
 * prepare packet (amount, expiry, condition), POST /fxTransfers a pacs.009 with the condition as Sh256Sgntr,
 * PUT /{transfers,fxTransfers}/{id} a pacs.002 (TxSts COMM, RESV, ABOR) and PUT …/error the pacs.002 error
 * form, with the ISO media types. A request made twice (a payer's resend) is the same bytes both times.
 */
type Json = Record<string, unknown>;

const ISO_STATE: Record<string, string> = { COMMITTED: 'COMM', RESERVED: 'RESV', ABORTED: 'ABOR', RECEIVED: 'RECV' };

export function isoContentType(resource: 'transfers' | 'fxTransfers'): string {
  return `application/vnd.interoperability.iso20022.${resource}+json;version=2.0`;
}

/** The amount in minor units of a two-decimal currency (USD, EUR: the scenarios' currencies). */
export function minorUnits(amount: string, scale = 2): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > scale) throw new Error(`${amount} has more than ${scale} decimals`);
  return BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0') || '0');
}

const party = (fsp: unknown) => ({ Id: { OrgId: { Othr: { Id: fsp } } } });
const agent = (fsp: unknown) => ({ FinInstnId: { Othr: { Id: fsp } } });

const groupHeader = (): Json => ({ MsgId: newUlid(), CreDtTm: new Date().toISOString() });

/** pacs.008 for an FSPIOP POST /transfers body; the ILP packet's data is the transaction the payer agreed. */
export function pacs008(b: Json): Json {
  const amount = b.amount as { currency: string; amount: string };
  const ilp = serializeIlpPrepare({
    amount: minorUnits(amount.amount),
    expiresAt: new Date(String(b.expiration)),
    executionCondition: Buffer.from(String(b.condition), 'base64url'),
    destination: `g.${b.payeeFsp}`,
    data: Buffer.from(JSON.stringify({ transactionId: b.transferId, payer: b.payerFsp, payee: b.payeeFsp, amount })),
  });
  return {
    GrpHdr: { ...groupHeader(), NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' }, PmtInstrXpryDtTm: b.expiration },
    CdtTrfTxInf: {
      PmtId: { TxId: b.transferId },
      ChrgBr: 'SHAR',
      Cdtr: party(b.payeeFsp),
      Dbtr: party(b.payerFsp),
      CdtrAgt: agent(b.payeeFsp),
      DbtrAgt: agent(b.payerFsp),
      IntrBkSttlmAmt: { Ccy: amount.currency, ActiveCurrencyAndAmount: amount.amount },
      VrfctnOfTerms: { IlpV4PrepPacket: ilp.toString('base64url') },
    },
  };
}

/** pacs.009 for an FSPIOP POST /fxTransfers body (amountType has no ISO field: ml-api-adapter drops it). */
export function pacs009(b: Json): Json {
  const source = b.sourceAmount as { currency: string; amount: string };
  const target = b.targetAmount as { currency: string; amount: string };
  return {
    GrpHdr: { ...groupHeader(), NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' }, PmtInstrXpryDtTm: b.expiration },
    CdtTrfTxInf: {
      PmtId: { TxId: b.commitRequestId, EndToEndId: b.determiningTransferId },
      Dbtr: agent(b.initiatingFsp),
      Cdtr: agent(b.counterPartyFsp),
      // The schema wants the underlying transfer's parties: the conversion's, as the FSPIOP body names no others.
      UndrlygCstmrCdtTrf: {
        Dbtr: party(b.initiatingFsp),
        DbtrAgt: agent(b.initiatingFsp),
        Cdtr: party(b.counterPartyFsp),
        CdtrAgt: agent(b.counterPartyFsp),
        InstdAmt: { Ccy: source.currency, ActiveOrHistoricCurrencyAndAmount: source.amount },
      },
      IntrBkSttlmAmt: { Ccy: target.currency, ActiveCurrencyAndAmount: target.amount },
      VrfctnOfTerms: { Sh256Sgntr: b.condition },
    },
  };
}

/** pacs.002 for an FSPIOP PUT /{transfers,fxTransfers}/{id} body (COMMITTED, RESERVED, ABORTED). */
export function pacs002(b: Json): Json {
  const state = String(b.transferState ?? b.conversionState);
  const iso = ISO_STATE[state];
  if (!iso) throw new Error(`no ISO 20022 status for ${state}`);
  return {
    GrpHdr: groupHeader(),
    TxInfAndSts: {
      ...(b.fulfilment === undefined ? {} : { ExctnConf: b.fulfilment }),
      PrcgDt: { DtTm: b.completedTimestamp },
      TxSts: iso,
    },
  };
}

/** pacs.002's error form for an FSPIOP PUT …/error body. */
export function pacs002Error(b: Json): Json {
  const info = b.errorInformation as { errorCode: string; errorDescription: string };
  return {
    GrpHdr: groupHeader(),
    TxInfAndSts: { StsRsnInf: { Rsn: { Prtry: info.errorCode }, AddtlInf: info.errorDescription } },
  };
}

export class Iso20022Requests {
  /** FSPIOP request bytes → the ISO body made of them, so a resend is the same ISO bytes. */
  private readonly made = new Map<string, string>();

  /** The ISO 20022 form of an FSPIOP request; the body keeps the FSPIOP body's layout (compact or spaced). */
  convert(r: FspRequest): FspRequest {
    const resource = r.path.startsWith('/fxTransfers') ? 'fxTransfers' : 'transfers';
    const type = isoContentType(resource);
    const headers: Record<string, string> = { ...r.headers, accept: type.replace(/;version=.*/, ';version=2') };
    if ('content-type' in headers) headers['content-type'] = type;
    if (r.body === undefined) return { ...r, headers };
    const key = createHash('sha256').update(`${r.method} ${r.path}\n${r.body}`).digest('base64url');
    let body = this.made.get(key);
    if (body === undefined) {
      const fspiop = JSON.parse(r.body) as Json;
      const iso =
        r.method === 'POST'
          ? resource === 'fxTransfers'
            ? pacs009(fspiop)
            : pacs008(fspiop)
          : r.path.endsWith('/error')
            ? pacs002Error(fspiop)
            : pacs002(fspiop);
      body = JSON.stringify(iso, null, r.body.includes('\n') ? 2 : undefined);
      this.made.set(key, body);
    }
    return { ...r, headers, body };
  }
}
