import type { Case } from './case.js';
import { corpus } from './corpus.js';

/**
 * The ISO 20022 corpus (the ALS run with API_TYPE=iso20022): the FSPIOP corpus's oracle setup, every /parties
 * and /participants case of it again with the ISO media types (`iso.` + its id; PUT /parties bodies in the ISO
 * form), and the cases only ISO mode has: the plain FSPIOP media types refused, ISO body validation.
 */

/** A PUT /parties success body in the ISO form (IdentificationVerificationReport), as a payee FSP sends it. */
export const isoPartyBody = (type = 'MSISDN', id = '{id}', fsp = '{payee}', extra: Record<string, unknown> = {}) => ({
  Assgnmt: {
    MsgId: 'msg{tag}',
    CreDtTm: '2024-10-29T16:25:11.916+01:00',
    Assgnr: { Agt: { FinInstnId: { Othr: { Id: fsp } } } },
    Assgne: { Agt: { FinInstnId: { Othr: { Id: '{payer}' } } } },
  },
  Rpt: {
    OrgnlId: `${type}/${id}`,
    Vrfctn: true,
    UpdtdPtyAndAcctId: {
      Pty: { Id: { PrvtId: { Othr: { SchmeNm: { Prtry: type }, Id: id } } }, Nm: 'Mats Hagman' },
      Agt: { FinInstnId: { Othr: { Id: fsp } } },
      Acct: { Ccy: 'USD' },
    },
  },
  ...extra,
});

/** A PUT /parties/.../error body in the ISO form, as a payee FSP sends it. */
export const isoErrorBody = (code: unknown = '3204') => ({
  Assgnmt: {
    MsgId: 'msg{tag}',
    CreDtTm: '2024-10-29T16:25:11.916+01:00',
    Assgnr: { Agt: { FinInstnId: { Othr: { Id: '{payee}' } } } },
    Assgne: { Agt: { FinInstnId: { Othr: { Id: '{payer}' } } } },
  },
  Rpt: { OrgnlId: 'MSISDN/{id}', Vrfctn: false, Rsn: { Cd: code } },
});

const fspiopMedia = /application\/vnd\.interoperability\.(parties|participants)\+json/g;
const isoMedia = 'application/vnd.interoperability.iso20022.$1+json';

/** Bodies the FSPIOP case sends on purpose malformed stay as they are; a valid FSPIOP body becomes its ISO form. */
const keptBodies = new Set([
  'parties.put.body-empty-object',
  'parties.put.body-none',
  'parties.put.body-not-json',
  'parties.put.error-bad-body',
]);

function isoBody(c: Case): unknown {
  if (c.method !== 'PUT' || !c.path.startsWith('/parties') || keptBodies.has(c.id) || c.body === undefined)
    return c.body;
  if (c.path.endsWith('/error')) {
    const info = (c.body as { errorInformation?: { errorCode?: unknown } }).errorInformation;
    return isoErrorBody(info?.errorCode ?? '3204');
  }
  const info = (c.body as { party: { partyIdInfo: { partyIdType: string; partyIdentifier: string } } }).party
    .partyIdInfo;
  return isoPartyBody(info.partyIdType, info.partyIdentifier);
}

/** The FSPIOP case in ISO mode: ISO media types (the base set and any the case sets), an ISO body. */
function toIso(c: Case): Case {
  const set = c.set
    ? Object.fromEntries(Object.entries(c.set).map(([k, value]) => [k, value.replace(fspiopMedia, isoMedia)]))
    : undefined;
  const body = isoBody(c);
  return {
    ...c,
    id: `iso.${c.id}`,
    media: 'iso20022',
    ...(set ? { set } : {}),
    ...(body === undefined ? {} : { body }),
  };
}

const derived = corpus.filter((c) => c.phase === 'api' && /^\/(parties|participants)(\/|$|\?)/.test(c.path)).map(toIso);

const both = { payer: {}, payee: {} };
const fspiop = (resource: string, version = '1.1') =>
  `application/vnd.interoperability.${resource}+json;version=${version}`;
const iso = (resource: string, version = '2.0') =>
  `application/vnd.interoperability.iso20022.${resource}+json;version=${version}`;
const found = { get: { status: 200, body: { partyList: [{ fspId: '{payee}' }] } } };
const isoCase = (c: Omit<Case, 'phase' | 'port' | 'headerSet' | 'fsps' | 'media'> & Partial<Case>): Case => ({
  phase: 'api',
  port: 'api',
  headerSet: c.path.startsWith('/participants') ? 'participants' : 'parties',
  fsps: both,
  media: 'iso20022',
  ...c,
});

const only: Case[] = [
  // The plain FSPIOP media types, refused in ISO mode.
  isoCase({
    id: 'iso.parties.get.fspiop-media',
    title: 'GET /parties with the FSPIOP media types',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    set: { accept: fspiop('parties'), 'content-type': fspiop('parties') },
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.fspiop-accept',
    title: 'GET /parties: FSPIOP Accept, ISO Content-Type',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    set: { accept: fspiop('parties') },
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.fspiop-content-type',
    title: 'GET /parties: ISO Accept, FSPIOP Content-Type',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    set: { 'content-type': fspiop('parties') },
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.accept-list',
    title: 'GET /parties: Accept lists the ISO and the FSPIOP types',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    set: { accept: `${iso('parties')}, ${fspiop('parties')}` },
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.accept-no-version',
    title: 'GET /parties: ISO Accept without a version',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    set: { accept: 'application/vnd.interoperability.iso20022.parties+json' },
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.v1.1',
    title: 'GET /parties: ISO media types at version 1.1',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    version: '1.1',
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.v1.0',
    title: 'GET /parties: ISO media types at version 1.0',
    method: 'GET',
    path: '/parties/MSISDN/{id}',
    version: '1.0',
    oracle: found,
  }),
  isoCase({
    id: 'iso.parties.get.not-found-subid',
    title: 'GET /parties with a SubId the oracle does not know',
    method: 'GET',
    path: '/parties/MSISDN/{id}/S9',
  }),
  isoCase({
    id: 'iso.parties.put.fspiop-media',
    title: 'PUT /parties with the FSPIOP Content-Type and an ISO body',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    set: { 'content-type': fspiop('parties') },
    body: isoPartyBody(),
  }),
  isoCase({
    id: 'iso.parties.put.error-fspiop-media',
    title: 'PUT /parties/.../error with the FSPIOP Content-Type',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    set: { 'content-type': fspiop('parties') },
    body: isoErrorBody(),
  }),
  isoCase({
    id: 'iso.participants.get.fspiop-media',
    title: 'GET /participants with the FSPIOP media types',
    method: 'GET',
    path: '/participants/MSISDN/{id}',
    set: { accept: fspiop('participants'), 'content-type': fspiop('participants') },
    oracle: found,
  }),
  isoCase({
    id: 'iso.participants.post.fspiop-media',
    title: 'POST /participants/{Type}/{ID} with the FSPIOP media types',
    method: 'POST',
    path: '/participants/MSISDN/{id}',
    set: { accept: fspiop('participants'), 'content-type': fspiop('participants') },
    body: { fspId: '{payer}', currency: 'USD' },
  }),
  isoCase({
    id: 'iso.participants.put-error.fspiop-media',
    title: 'PUT /participants/.../error with the FSPIOP Content-Type',
    method: 'PUT',
    path: '/participants/MSISDN/{id}/error',
    set: { 'content-type': fspiop('participants'), 'fspiop-destination': '{payee}' },
    body: { errorInformation: { errorCode: '3200', errorDescription: 'Generic ID not found' } },
  }),
  isoCase({
    id: 'iso.batch.fspiop-media',
    title: 'batch POST /participants with the FSPIOP media types',
    method: 'POST',
    path: '/participants',
    set: { accept: fspiop('participants'), 'content-type': fspiop('participants') },
    body: {
      requestId: '{rid}',
      partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '{id}', fspId: '{payer}' }],
      currency: 'USD',
    },
  }),
  // ISO bodies: what the ALS's ISO schema file accepts and refuses.
  isoCase({
    id: 'iso.parties.put.fspiop-body',
    title: 'PUT /parties with an FSPIOP party body',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: {
      party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '{id}', fspId: '{payee}' }, name: 'Mats' },
    },
  }),
  isoCase({
    id: 'iso.parties.put.no-rpt',
    title: 'PUT /parties without Rpt',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { Assgnmt: isoPartyBody().Assgnmt },
  }),
  isoCase({
    id: 'iso.parties.put.no-msgid',
    title: 'PUT /parties without Assgnmt.MsgId',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Assgnmt: { ...isoPartyBody().Assgnmt, MsgId: undefined } },
  }),
  isoCase({
    id: 'iso.parties.put.msgid-long',
    title: 'PUT /parties with a MsgId of 36 characters',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Assgnmt: { ...isoPartyBody().Assgnmt, MsgId: 'x'.repeat(36) } },
  }),
  isoCase({
    id: 'iso.parties.put.msgid-number',
    title: 'PUT /parties with a numeric MsgId',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Assgnmt: { ...isoPartyBody().Assgnmt, MsgId: 12345 } },
  }),
  isoCase({
    id: 'iso.parties.put.no-vrfctn',
    title: 'PUT /parties without Rpt.Vrfctn',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Rpt: { OrgnlId: 'MSISDN/{id}' } },
  }),
  isoCase({
    id: 'iso.parties.put.vrfctn-string',
    title: 'PUT /parties with Vrfctn "true" (a string)',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Rpt: { ...isoPartyBody().Rpt, Vrfctn: 'true' } },
  }),
  isoCase({
    id: 'iso.parties.put.bad-date',
    title: 'PUT /parties with CreDtTm not a date-time',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Assgnmt: { ...isoPartyBody().Assgnmt, CreDtTm: 'yesterday' } },
  }),
  isoCase({
    id: 'iso.parties.put.assignor-empty',
    title: 'PUT /parties with Assgnr {} (neither Pty nor Agt)',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: { ...isoPartyBody(), Assgnmt: { ...isoPartyBody().Assgnmt, Assgnr: {} } },
  }),
  isoCase({
    id: 'iso.parties.put.assignor-party',
    title: 'PUT /parties with the assignor as a party (Pty), not an agent',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: {
      ...isoPartyBody(),
      Assgnmt: { ...isoPartyBody().Assgnmt, Assgnr: { Pty: { Nm: 'Payee Bank', CtryOfRes: 'BE' } } },
    },
  }),
  isoCase({
    id: 'iso.parties.put.unknown-property',
    title: 'PUT /parties with a property the schema does not name',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: isoPartyBody('MSISDN', '{id}', '{payee}', { Foo: { Bar: 1 } }),
  }),
  isoCase({
    id: 'iso.parties.put.supplementary',
    title: 'PUT /parties with SplmtryData',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: isoPartyBody('MSISDN', '{id}', '{payee}', { SplmtryData: { Envlp: { any: 'thing' } } }),
  }),
  isoCase({
    id: 'iso.parties.put.body-array',
    title: 'PUT /parties with a JSON array',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: [isoPartyBody()],
  }),
  isoCase({
    id: 'iso.parties.put.spacing',
    title: 'PUT /parties: the body is forwarded as sent (odd spacing, key order)',
    method: 'PUT',
    path: '/parties/MSISDN/{id}',
    body: `{ "Rpt" : {"Vrfctn":true,   "OrgnlId":"MSISDN/{id}"},\n "Assgnmt":{"MsgId":"msg{tag}","CreDtTm":"2024-10-29T16:25:11.916+01:00","Assgnr":{"Agt":{"FinInstnId":{"Othr":{"Id":"{payee}"}}}},"Assgne":{"Agt":{"FinInstnId":{"Othr":{"Id":"{payer}"}}}}} }`,
  }),
  isoCase({
    id: 'iso.parties.put.error-no-rsn',
    title: 'PUT /parties/.../error without Rpt.Rsn',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    body: { ...isoErrorBody(), Rpt: { OrgnlId: 'MSISDN/{id}', Vrfctn: false } },
  }),
  isoCase({
    id: 'iso.parties.put.error-no-assgnmt',
    title: 'PUT /parties/.../error without Assgnmt',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    body: { Rpt: isoErrorBody().Rpt },
  }),
  isoCase({
    id: 'iso.parties.put.error-fspiop-body',
    title: 'PUT /parties/.../error with an FSPIOP errorInformation body',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    body: { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } },
  }),
  isoCase({
    id: 'iso.parties.put.error-subid-fspiop-body',
    title: 'PUT /parties/.../{SubId}/error with an FSPIOP errorInformation body',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/S1/error',
    body: { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } },
  }),
  isoCase({
    id: 'iso.parties.put.error-code-long',
    title: 'PUT /parties/.../error with a 5-character reason code',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    body: isoErrorBody('32040'),
  }),
  isoCase({
    id: 'iso.parties.put.error-spacing',
    title: 'PUT /parties/.../error: the body is forwarded as sent',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    body: `{"Rpt":{"Rsn":{"Cd":"5100"},"OrgnlId":"MSISDN/{id}","Vrfctn":false},  "Assgnmt":{"MsgId":"msg{tag}","CreDtTm":"2024-10-29T16:25:11.916+01:00","Assgnr":{"Agt":{"FinInstnId":{"Othr":{"Id":"{payee}"}}}},"Assgne":{"Agt":{"FinInstnId":{"Othr":{"Id":"{payer}"}}}}}}`,
  }),
  isoCase({
    id: 'iso.parties.put.error-dest-dead',
    title: 'PUT /parties/.../error to a payer whose endpoints are on a closed port',
    method: 'PUT',
    path: '/parties/MSISDN/{id}/error',
    fsps: { payer: { endpoints: 'dead' }, payee: {} },
    body: isoErrorBody(),
  }),
];

/**
 * Requesters at versions other than 2.0 (the ISO media types at 1.1 and 1.0): which version the Hub's own
 * messages to them carry (its error callbacks and /participants answers), and its forwarded ones.
 */
const otherVersions: readonly [string, '1.1' | '1.0'][] = [
  ['iso.parties.get.oracle-empty', '1.1'],
  ['iso.parties.get.oracle-empty', '1.0'],
  ['iso.parties.get.oracle-500', '1.1'],
  ['iso.parties.get.payee-unknown', '1.1'],
  ['iso.parties.get.no-oracle', '1.1'],
  ['iso.parties.get.msisdn-letters', '1.1'],
  ['iso.parties.get.not-found-subid', '1.1'],
  ['iso.parties.put.dest-unknown', '1.1'],
  ['iso.parties.put.error-dest-unknown', '1.1'],
  ['iso.participants.get.found', '1.1'],
  ['iso.participants.get.found', '1.0'],
  ['iso.participants.get.empty', '1.1'],
  ['iso.participants.post.created', '1.1'],
  ['iso.participants.post.oracle-500', '1.1'],
  ['iso.participants.put.updated', '1.1'],
  ['iso.participants.delete.ok', '1.1'],
  ['iso.participants.put-error.no-dest', '1.1'],
  ['iso.batch.ok', '1.1'],
  ['iso.batch.oracle-500', '1.1'],
];

const atVersion = [...derived, ...only];
const versioned: Case[] = otherVersions.map(([id, version]) => {
  const c = atVersion.find((candidate) => candidate.id === id);
  if (!c) throw new Error(`the ISO corpus has no case ${id}`);
  return { ...c, id: `${id}.v${version}`, title: `${c.title} (version ${version})`, version };
});

export const isoCorpus: readonly Case[] = [
  ...corpus.filter((c) => c.phase === 'setup'),
  ...derived,
  ...only,
  ...versioned,
];
