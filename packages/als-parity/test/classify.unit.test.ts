import { describe, expect, it } from 'vitest';
import { rowOf, withPending } from '../src/classify.js';
import type { Difference } from '../src/compare.js';
import type { ExceptionList } from '../src/exceptions.js';
import type { CaseRecord } from '../src/normalise.js';

const diff = (caseId: string, field: string, at = field): Difference => ({ caseId, field, at, original: 1, ours: 2 });

const row = (id: string, pending?: boolean) => ({
  id,
  case: id,
  original: '',
  ours: '',
  why: '',
  ...(pending ? { pending } : {}),
});

const record = (id: string, fspUrl: string): CaseRecord => ({
  id,
  request: { method: 'GET', path: '/parties/MSISDN/1' },
  answer: { status: 202, body: null },
  oracle: [],
  fsp: [{ url: fspUrl } as CaseRecord['fsp'][number]],
  ledger: [],
});

describe('the row of a difference not yet listed (compare --update-pending)', () => {
  it('header rows first, then the version of a callback by its path, then the case, texts and look-ups', () => {
    expect(rowOf(diff('parties.get.found', 'fsp.headers.traceparent'), undefined)).toBe('traceparent');
    expect(rowOf(diff('x', 'oracle.headers.fspiop-source'), undefined)).toBe('outbound-fspiop-headers');
    const errorCase = record('e', '/parties/MSISDN/1/error');
    expect(rowOf(diff('e', 'fsp.headers.content-type', 'fsp[0].headers.content-type'), errorCase)).toBe(
      'error-callback-version',
    );
    const putCase = record('p', '/parties/MSISDN/1');
    expect(rowOf(diff('p', 'fsp.headers.content-type', 'fsp[0].headers.content-type'), putCase)).toBe(
      'hub-callback-version',
    );
    expect(rowOf(diff('x', 'fsp.body.errorInformation.extensionList'), undefined)).toBe('error-extension-list');
    expect(rowOf(diff('iso.batch.post', 'answer.body'), undefined)).toBe('batch');
    expect(rowOf(diff('unlisted', 'answer.body.errorInformation.errorDescription'), undefined)).toBe('texts');
    expect(rowOf(diff('unlisted', 'ledger'), undefined)).toBe('ledger-lookups');
    expect(rowOf(diff('unlisted', 'answer.status'), undefined)).toBe('other');
  });
});

describe('the pending exceptions rewritten from a run', () => {
  const list: ExceptionList = {
    rows: [row('texts', true), row('batch'), row('other', true)],
    exceptions: [
      { cases: ['batch.one'], field: 'answer.body', row: 'batch' },
      { cases: ['old.case', 'not.compared'], field: 'answer.body.errorInformation.errorDescription', row: 'texts' },
    ],
  };
  const originals = new Map([
    ['old.case', record('old.case', '/')],
    ['new.case', record('new.case', '/')],
  ]);

  it('keeps the kept ones, keeps pending ones of cases not compared, and groups the rest by row and field', () => {
    const diffs = [
      diff('batch.one', 'answer.body.partyList'),
      diff('new.case', 'answer.body.errorInformation.errorDescription'),
      diff('new.case', 'answer.status'),
    ];
    expect(withPending(list, diffs, originals).exceptions).toEqual([
      { cases: ['batch.one'], field: 'answer.body', row: 'batch' },
      { cases: ['not.compared'], field: 'answer.body.errorInformation.errorDescription', row: 'texts' },
      { cases: ['new.case'], field: 'answer.status', row: 'other' },
      { cases: ['new.case'], field: 'answer.body.errorInformation.errorDescription', row: 'texts' },
    ]);
  });

  it('refuses a new difference under a kept row unless a first listing adopts it', () => {
    const diffs = [diff('batch.two', 'answer.status')];
    expect(() => withPending(list, diffs, originals)).toThrow(/row "batch" is kept/);
    expect(withPending(list, diffs, originals, { adoptKept: true }).exceptions).toContainEqual({
      cases: ['batch.two'],
      field: 'answer.status',
      row: 'batch',
    });
  });
});
