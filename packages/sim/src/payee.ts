import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { answerUnlessFaulted, type FaultOptions } from './faults.js';
import { type Bind, httpDate, listen, pathSegments, sendJson, statusOf } from './http.js';

export interface PayeeSimOptions {
  readonly port?: number;
  /** Listen address and advertised host (loopback by default). */
  readonly bind?: Bind;
  /** Where PUT /parties callbacks go (the ALS). May be set later with setAlsUrl. */
  readonly alsUrl?: string;
  /** FSP name when a request carries no FSPIOP-Destination. */
  readonly fspId?: string;
  /** Faults on the answer to GET /parties (latency delays the 202). */
  readonly faults?: FaultOptions;
  /** Faults for one FSP name (from FSPIOP-Destination), instead of `faults`. */
  readonly fspFaults?: Readonly<Record<string, FaultOptions>>;
  /** Share (0..1) of lookups answered 202 and then never called back. */
  readonly dropRate?: number;
  /** Delay between the 202 and the PUT callback. */
  readonly callbackDelayMs?: number;
  /** IDs starting with this get PUT /parties/.../error (3204) instead of a party. */
  readonly errorPrefix?: string;
  /** Connections the pool to ALS keeps open. */
  readonly connections?: number;
  readonly random?: () => number;
}

export interface PayeeSim {
  readonly url: string;
  readonly port: number;
  /** GET /parties received, callbacks sent (answered 2xx), callbacks failed, callbacks dropped on purpose. */
  readonly stats: { lookups: number; callbacks: number; callbackFailures: number; dropped: number; other: number };
  setAlsUrl(url: string): void;
  close(): Promise<void>;
}

/** Version asked for in an Accept header ("...;version=1" → 1.1, "version=2" → 2.0); 1.1 by default. */
export function versionOf(accept: string | undefined): '1.1' | '2.0' {
  const match = accept ? /version=(\d+)(?:\.(\d+))?/.exec(accept) : null;
  return match?.[1] === '2' ? '2.0' : '1.1';
}

const text = (value: string) => JSON.stringify(value);

/**
 * A Party for PUT /parties (FSPIOP v1.1 section 6.3.4.1; v2.0 adds supportedCurrencies), written as text
 * around the escaped values: the payee builds one per lookup, and an object tree per call costs more.
 */
export function partyBody(
  type: string,
  id: string,
  subId: string | undefined,
  fspId: string,
  version: '1.1' | '2.0',
): string {
  const sub = subId ? `,"partySubIdOrType":${text(subId)}` : '';
  const partyIdInfo = `{"partyIdType":${text(type)},"partyIdentifier":${text(id)}${sub},"fspId":${text(fspId)}}`;
  const currencies = version === '2.0' ? ',"supportedCurrencies":["USD"]' : '';
  return `{"party":{"partyIdInfo":${partyIdInfo},"name":"Mats Hagman","personalInfo":{"complexName":{"firstName":"Mats","lastName":"Hagman"},"dateOfBirth":"1983-10-25"}${currencies}}}`;
}

/**
 * The same answer in ISO 20022 form (an IdentificationVerificationReport), for a lookup whose Accept names
 * the ISO media type: an ALS in ISO 20022 mode validates PUT /parties against that schema.
 */
export function isoPartyBody(type: string, id: string, fspId: string, payer: string, msgId: string): string {
  const agent = (fsp: string) => `{"Agt":{"FinInstnId":{"Othr":{"Id":${text(fsp)}}}}}`;
  return (
    `{"Assgnmt":{"MsgId":${text(msgId)},"CreDtTm":"${new Date().toISOString()}","Assgnr":${agent(fspId)},"Assgne":${agent(payer)}},` +
    `"Rpt":{"OrgnlId":${text(`${type}/${id}`)},"Vrfctn":true,"UpdtdPtyAndAcctId":{"Pty":{"Id":{"PrvtId":{"Othr":{"SchmeNm":{"Prtry":${text(type)}},"Id":${text(id)}}}},"Nm":"Mats Hagman"},"Agt":{"FinInstnId":{"Othr":{"Id":${text(fspId)}}}},"Acct":{"Ccy":"USD"}}}}`
  );
}

const isoNotFoundError = (type: string, id: string, fspId: string, payer: string, msgId: string) =>
  `{"Assgnmt":{"MsgId":${text(msgId)},"CreDtTm":"${new Date().toISOString()}","Assgnr":{"Agt":{"FinInstnId":{"Othr":{"Id":${text(fspId)}}}}},"Assgne":{"Agt":{"FinInstnId":{"Othr":{"Id":${text(payer)}}}}}},"Rpt":{"OrgnlId":${text(`${type}/${id}`)},"Vrfctn":false,"Rsn":{"Cd":"3204"}}}`;

const notFoundError = JSON.stringify({
  errorInformation: { errorCode: '3204', errorDescription: 'Party not found' },
});

export async function startPayeeSim(opts: PayeeSimOptions = {}): Promise<PayeeSim> {
  const random = opts.random ?? Math.random;
  const stats = { lookups: 0, callbacks: 0, callbackFailures: 0, dropped: 0, other: 0 };
  let pool: Pool | undefined;
  let alsPath = '';
  const setAlsUrl = (url: string): void => {
    const previous = pool;
    const parsed = new URL(url);
    alsPath = parsed.pathname.replace(/\/$/, '');
    pool = new Pool(parsed.origin, { connections: opts.connections ?? 64, keepAliveTimeout: 60_000 });
    void previous?.close();
  };
  if (opts.alsUrl) setAlsUrl(opts.alsUrl);
  const timers = new Set<NodeJS.Timeout>();
  let isoMessages = 0;

  const callBack = async (req: IncomingMessage, segments: string[]): Promise<void> => {
    if (!pool) {
      stats.callbackFailures++;
      return;
    }
    const [, type, id, subId] = segments as [string, string, string, string | undefined];
    const fspId = headerText(req.headers['fspiop-destination']) ?? opts.fspId ?? 'payeefsp';
    const accept = headerText(req.headers.accept);
    const version = versionOf(accept);
    const isError = opts.errorPrefix !== undefined && id.startsWith(opts.errorPrefix);
    const iso = accept?.includes('iso20022') === true;
    const payer = headerText(req.headers['fspiop-source']) ?? '';
    const msgId = `m${(++isoMessages).toString(36)}`;
    const body = iso
      ? isError
        ? isoNotFoundError(type, id, fspId, payer, msgId)
        : isoPartyBody(type, id, fspId, payer, msgId)
      : isError
        ? notFoundError
        : partyBody(type, id, subId, fspId, version);
    const resource = segments
      .slice(0, 4)
      .map((s) => encodeURIComponent(s))
      .join('/');
    const headers: Record<string, string> = {
      'content-type': `application/vnd.interoperability.${iso ? 'iso20022.' : ''}parties+json;version=${version}`,
      date: httpDate(),
      'fspiop-source': fspId,
      'fspiop-http-method': 'PUT',
    };
    const source = headerText(req.headers['fspiop-source']);
    if (source) headers['fspiop-destination'] = source;
    const traceparent = headerText(req.headers.traceparent);
    if (traceparent) headers.traceparent = traceparent;
    const tracestate = headerText(req.headers.tracestate);
    const mark = `tx_callback_start_ts=${Date.now()}`;
    headers.tracestate = tracestate ? `${tracestate},${mark}` : mark;
    try {
      const status = await statusOf(pool, {
        method: 'PUT',
        path: `${alsPath}/${resource}${isError ? '/error' : ''}`,
        headers,
        body,
      });
      if (status < 300) stats.callbacks++;
      else stats.callbackFailures++;
    } catch {
      stats.callbackFailures++;
    }
  };

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const segments = pathSegments(req.url);
    if (req.method !== 'GET' || segments[0] !== 'parties' || segments.length < 3 || segments.length > 4) {
      // Callbacks for /participants and anything else a payee may receive: acknowledged, not simulated.
      stats.other++;
      sendJson(res, req.method === 'PUT' ? 200 : 404, undefined);
      return;
    }
    stats.lookups++;
    sendJson(res, 202, undefined);
    if (opts.dropRate && random() < opts.dropRate) {
      stats.dropped++;
      return;
    }
    if (opts.callbackDelayMs && opts.callbackDelayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void callBack(req, segments);
      }, opts.callbackDelayMs);
      timers.add(timer);
    } else {
      void callBack(req, segments);
    }
  };

  const running = await listen(
    (req, res) => {
      req.resume();
      const fsp = headerText(req.headers['fspiop-destination']);
      answerUnlessFaulted((fsp && opts.fspFaults?.[fsp]) || opts.faults, req, res, answer);
    },
    opts.port ?? 0,
    opts.bind,
  );

  return {
    url: running.url,
    port: running.port,
    stats,
    setAlsUrl,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await running.close();
      await pool?.close();
    },
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
