import { randomBytes } from 'node:crypto';
import { type ReceivedCallback, startOracleSim, startPayeeSim, startPayerSim } from '@mojafast/sim';
import { request } from 'undici';
import { onboardDfsp } from './admin.js';
import type { Hub } from './compare-handlers.js';
import type { ApiMode } from './differences.js';
import { startOurAls } from './processes.js';

/**
 * The discovery before the transfers: a payer's party lookups through our ALS (built, in the mode's API_TYPE)
 * on the switch's admin API, with our oracle and payee simulators: a party the oracle maps to a payee
 * central-ledger knows, and one it does not have. The callbacks come back as the payer received them.
 */
export interface Lookups {
  /** GET /parties/MSISDN/25510000001: the payee's answer, through the ALS. */
  readonly found: ReceivedCallback;
  /** GET /parties/MSISDN/40410000001: the ALS's own error (3204). */
  readonly unknown: ReceivedCallback;
  readonly names: { readonly payer: string; readonly payee: string };
}

export function partiesContentType(mode: ApiMode): string {
  return `application/vnd.interoperability.${mode === 'iso20022' ? 'iso20022.' : ''}parties+json;version=${mode === 'iso20022' ? '2.0' : '1.1'}`;
}

export async function lookUpThroughOurAls(hub: Hub, mode: ApiMode): Promise<Lookups> {
  const names = { payer: `${mode}alspayer`, payee: `${mode}alspayee` };
  const usd = { USD: { netDebitCap: '1000', fundsIn: '1000' } };
  const payer = await startPayerSim({ recordHistory: true });
  const payee = await startPayeeSim({});
  const oracle = await startOracleSim({
    parties: { 'MSISDN/25510000001': [{ fspId: names.payee, currency: 'USD' }] },
  });
  let als: Awaited<ReturnType<typeof startOurAls>> | undefined;
  try {
    await onboardDfsp(hub.admin, { name: names.payer, currencies: usd, callbackBase: payer.url });
    await onboardDfsp(hub.admin, { name: names.payee, currencies: usd, callbackBase: payee.url });
    als = await startOurAls({
      ALS_SWITCH_ENDPOINT: hub.sw.adminUrl,
      ALS_ORACLE_URL: oracle.url,
      ALS_API_TYPE: mode,
      ALS_LOG_LEVEL: 'warn',
    });
    payee.setAlsUrl(als.url);
    const type = partiesContentType(mode);
    const lookup = async (path: string): Promise<ReceivedCallback> => {
      const traceId = randomBytes(16).toString('hex');
      const res = await request(`${als?.url}${path}`, {
        headers: {
          accept: type.replace(/;version=(\d+).*/, ';version=$1'),
          'content-type': type,
          date: new Date().toUTCString(),
          'fspiop-source': names.payer,
          traceparent: `00-${traceId}-0123456789abcdef-01`,
        },
      });
      const text = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`our ALS answered GET ${path} with ${res.statusCode}: ${text}`);
      return payer.waitForCallback(traceId, 10_000);
    };
    return {
      found: await lookup('/parties/MSISDN/25510000001'),
      unknown: await lookup('/parties/MSISDN/40410000001'),
      names,
    };
  } finally {
    await als?.stop();
    await payer.close();
    await payee.close();
    await oracle.close();
  }
}
