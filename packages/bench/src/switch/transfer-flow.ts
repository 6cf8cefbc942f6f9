import { httpDate } from '@mojafast/sim';
import { newId, prepareMessage, sendToFront, transferBody } from '@mojafast/switch';
import { request } from 'undici';
import { benchSecret } from './fulfilment.js';
import type { PayerFsp } from './payer.js';

/**
 * One iteration of bench:switch as a payer FSP runs it, quotes left out: discovery (GET /parties to the ALS
 * until the PUT /parties callback), then the transfer (POST /transfers to ml-api-adapter until the payer's
 * PUT /transfers/{id} callback, the payee having fulfilled it). Times in milliseconds from performance.now().
 */
export interface FlowContext {
  readonly alsUrl: string;
  readonly frontUrl: string;
  readonly payer: PayerFsp;
  readonly payerName: string;
  readonly payeeName: string;
  readonly seed: string;
  /** Per step, request to callback. */
  readonly timeoutMs: number;
}

export type FlowOutcome =
  | { readonly ok: true; readonly discoveryMs: number; readonly transferMs: number; readonly e2eMs: number }
  | { readonly ok: false; readonly stage: 'discovery' | 'transfer'; readonly reason: string };

const partiesMedia = 'application/vnd.interoperability.parties+json;version=1.1';

async function lookup(ctx: FlowContext, msisdn: string): Promise<string | undefined> {
  const done = ctx.payer.wait(`party ${msisdn}`, ctx.timeoutMs);
  const res = await request(`${ctx.alsUrl}/parties/MSISDN/${msisdn}`, {
    method: 'GET',
    headers: { accept: partiesMedia, 'content-type': partiesMedia, date: httpDate(), 'fspiop-source': ctx.payerName },
  });
  await res.body.dump();
  if (res.statusCode !== 202) return `ALS answered GET /parties with ${res.statusCode}`;
  const outcome = await done;
  return outcome.ok ? undefined : outcome.reason;
}

async function transfer(ctx: FlowContext): Promise<string | undefined> {
  const transferId = newId();
  const body = transferBody(
    { payer: ctx.payerName, payee: ctx.payeeName, currency: 'USD', amount: '1', transferId },
    benchSecret(ctx.seed, transferId),
  );
  const done = ctx.payer.wait(`transfer ${transferId}`, ctx.timeoutMs);
  await sendToFront(ctx.frontUrl, prepareMessage('', body));
  const outcome = await done;
  return outcome.ok ? undefined : outcome.reason;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message.slice(0, 160) : String(error));

export async function runFlow(ctx: FlowContext, msisdn: string): Promise<FlowOutcome> {
  const t0 = performance.now();
  const lookupFailure = await lookup(ctx, msisdn).catch(reasonOf);
  if (lookupFailure !== undefined) return { ok: false, stage: 'discovery', reason: lookupFailure };
  const t1 = performance.now();
  const transferFailure = await transfer(ctx).catch(reasonOf);
  if (transferFailure !== undefined) return { ok: false, stage: 'transfer', reason: transferFailure };
  const t2 = performance.now();
  return { ok: true, discoveryMs: t1 - t0, transferMs: t2 - t1, e2eMs: t2 - t0 };
}
