import type { Case } from './case.js';
import { corpus } from './corpus.js';
import { isoPartyBody } from './corpus-iso.js';
import type { RecordingSims } from './sims.js';

/**
 * The inter-scheme corpus: the ALS in ISO 20022 mode with the proxy cache on (one Redis database of its own)
 * and its timeout handler, beside two proxies of other schemes that central-ledger lists (GET
 * /participants?isProxy=true). The proxies, like every FSP of the simulators, answer 202 and never call back,
 * so a lookup sent to them ends in the timeout handler's error callback once PROXY_CACHE_EXPIRES_IN_SEC
 * (INTER_SCHEME_ENV) passed; those cases last long enough to see it. `{ghost}` is an FSP of another scheme:
 * central-ledger does not know it.
 */
export const interSchemeProxies = ['proxyA', 'proxyB'] as const;

/** The settings both ALSs run with for this corpus (beside src/env.ts's and the proxy cache's Redis). */
export const INTER_SCHEME_ENV: Readonly<Record<string, string>> = {
  ALS_API_TYPE: 'iso20022',
  // Lookups expire after 2 s and the timeout handler looks every second, so a case sees its answer within 5 s.
  ALS_PROXY_CACHE_EXPIRES_IN_SEC: '2',
  ALS_HANDLERS__TIMEOUT__TIMEXP: '*/1 * * * * *',
};

/** A case waiting for the timeout handler: the lookup's expiry, one handler period and a margin. */
const timeoutMs = 6_000;

/** The proxies central-ledger knows, as every run of this corpus needs them. */
export function addInterSchemeProxies(sims: RecordingSims): void {
  for (const name of interSchemeProxies) sims.setParticipant(name, { active: true, endpoints: 'ok', proxy: true });
}

const found = (fsp: string) => ({ get: { status: 200, body: { partyList: [{ fspId: fsp }] } } });
const viaProxy = { 'fspiop-source': '{ghost}', 'fspiop-proxy': 'proxyA' };
const lookup = (c: Omit<Case, 'phase' | 'port' | 'headerSet' | 'fsps' | 'media' | 'method'> & Partial<Case>): Case => ({
  phase: 'api',
  port: 'api',
  headerSet: 'parties',
  media: 'iso20022',
  method: 'GET',
  fsps: { payer: {}, payee: {} },
  ...c,
});

const cases: Case[] = [
  lookup({
    id: 'isx.parties.get.found',
    title: 'GET /parties the oracle finds in the scheme: forwarded, the proxies not asked',
    path: '/parties/MSISDN/{id}',
    oracle: found('{payee}'),
  }),
  lookup({
    id: 'isx.parties.get.oracle-empty',
    title: 'GET /parties the oracle does not know: asked of every proxy; none answers, the timeout handler does',
    path: '/parties/MSISDN/{id}',
    minMs: timeoutMs,
  }),
  lookup({
    id: 'isx.parties.get.oracle-empty-subid',
    title: 'GET /parties/{Type}/{ID}/{SubId} the oracle does not know: the proxies, then the timeout',
    path: '/parties/MSISDN/{id}/S1',
    minMs: timeoutMs,
  }),
  lookup({
    id: 'isx.parties.get.oracle-remote-unmapped',
    title: 'GET /parties the oracle places at an FSP of no scheme known and no proxy mapped',
    path: '/parties/MSISDN/{id}',
    oracle: found('{ghost}'),
    minMs: timeoutMs,
  }),
  lookup({
    id: 'isx.parties.get.dest-remote-unmapped',
    title: 'GET /parties to an FSPIOP-Destination outside the scheme with no proxy mapped',
    path: '/parties/MSISDN/{id}',
    set: { 'fspiop-destination': '{ghost}' },
    minMs: timeoutMs,
  }),
  lookup({
    id: 'isx.parties.get.via-proxy',
    title: 'GET /parties from an FSP of another scheme through its proxy; the oracle finds the party here',
    path: '/parties/MSISDN/{id}',
    set: viaProxy,
    oracle: found('{payee}'),
  }),
  lookup({
    id: 'isx.parties.get.via-proxy-not-found',
    title: 'GET /parties through a proxy the oracle does not know: the other proxy asked, then the timeout',
    path: '/parties/MSISDN/{id}',
    set: viaProxy,
    minMs: timeoutMs,
  }),
  lookup({
    id: 'isx.parties.get.via-proxy-dest-local',
    title: 'GET /parties through a proxy to a destination here the oracle confirms',
    path: '/parties/MSISDN/{id}',
    set: { ...viaProxy, 'fspiop-destination': '{payee}' },
    oracle: found('{payee}'),
  }),
  lookup({
    id: 'isx.parties.get.via-proxy-dest-local-wrong',
    title: 'GET /parties through a proxy to a destination here the oracle does not place the party at',
    path: '/parties/MSISDN/{id}',
    set: { ...viaProxy, 'fspiop-destination': '{payee}' },
    oracle: found('{payee2}'),
    fsps: { payer: {}, payee: {}, payee2: {} },
  }),
  lookup({
    id: 'isx.parties.get.via-unknown-proxy',
    title: 'GET /parties naming a proxy central-ledger does not know',
    path: '/parties/MSISDN/{id}',
    set: { 'fspiop-source': '{ghost}', 'fspiop-proxy': 'proxy{tag}' },
    oracle: found('{payee}'),
  }),
  lookup({
    id: 'isx.parties.put.via-proxy',
    title: 'PUT /parties from an FSP of another scheme through its proxy, to a payer here',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    set: { ...viaProxy, 'fspiop-destination': '{payer}' },
    body: isoPartyBody('MSISDN', '{id}', '{ghost}'),
  }),
  lookup({
    id: 'isx.parties.put.error-via-proxy',
    title: 'PUT /parties/.../error from an FSP of another scheme through its proxy',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    set: { ...viaProxy, 'fspiop-destination': '{payer}' },
    body: {
      Assgnmt: {
        MsgId: 'msg{tag}',
        CreDtTm: '2024-10-29T16:25:11.916+01:00',
        Assgnr: { Agt: { FinInstnId: { Othr: { Id: '{ghost}' } } } },
        Assgne: { Agt: { FinInstnId: { Othr: { Id: '{payer}' } } } },
      },
      Rpt: { OrgnlId: 'MSISDN/{id}', Vrfctn: false, Rsn: { Cd: '3204' } },
    },
  }),
];

export const interSchemeCorpus: readonly Case[] = [...corpus.filter((c) => c.phase === 'setup'), ...cases];
