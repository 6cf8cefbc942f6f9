import { describe, expect, it } from 'vitest';
import { caseValues, fill, unfill } from '../src/case.js';
import type { Difference } from '../src/compare.js';
import { compareCase } from '../src/compare.js';
import { corpus } from '../src/corpus.js';
import { isoCorpus } from '../src/corpus-iso.js';
import { judge, loadExceptions } from '../src/exceptions.js';
import { originalIsoFixture, readFixture } from '../src/fixtures.js';
import type { CaseRecord } from '../src/normalise.js';
import { suites } from '../src/suites.js';

describe('the corpus, the fixture and the exception list', () => {
  it('has at least 150 cases with unique ids', () => {
    const ids = corpus.map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(150);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the fixture records every case of the corpus, with its provenance', () => {
    const fixture = readFixture();
    expect(fixture.cases.map((c) => c.id)).toEqual(corpus.map((c) => c.id));
    expect(fixture.provenance).toMatchObject({
      service: 'account-lookup-service',
      version: '17.16.1',
      commit: '97d195ae4f4b2515eeadc18d2021fad7614ef7be',
    });
    expect(fixture.provenance.command).toMatch(/record/);
  });

  it('has at least 80 ISO 20022 cases beyond the oracle setup, with unique ids', () => {
    const ids = isoCorpus.filter((c) => c.phase !== 'setup').map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(80);
    expect(new Set(isoCorpus.map((c) => c.id)).size).toBe(isoCorpus.length);
  });

  it('the ISO 20022 fixture records every case of the ISO corpus, from the original in that mode', () => {
    const fixture = readFixture(originalIsoFixture);
    expect(fixture.cases.map((c) => c.id)).toEqual(isoCorpus.map((c) => c.id));
    expect(fixture.provenance).toMatchObject({
      service: 'account-lookup-service',
      version: '17.16.1',
      commit: '97d195ae4f4b2515eeadc18d2021fad7614ef7be',
      apiType: 'iso20022',
    });
    expect(fixture.provenance.command).toMatch(/record .*--api-type iso20022/);
  });

  it('the inter-scheme fixture records every case of its corpus, from the original with the proxy cache on', () => {
    const suite = suites['inter-scheme'];
    const fixture = readFixture(suite.fixture);
    expect(fixture.cases.map((c) => c.id)).toEqual(suite.cases.map((c) => c.id));
    expect(fixture.provenance).toMatchObject({
      commit: '97d195ae4f4b2515eeadc18d2021fad7614ef7be',
      apiType: 'iso20022',
      proxyCache: true,
      settings: suite.env,
    });
    expect(fixture.provenance.command).toMatch(/record .*--inter-scheme/);
  });

  it('every exception names cases of the corpora and a row with a reason', () => {
    const list = loadExceptions();
    const ids = new Set(Object.values(suites).flatMap((suite) => suite.cases.map((c) => c.id)));
    for (const e of list.exceptions) for (const id of e.cases) expect(ids, `${e.row}: ${id}`).toContain(id);
    for (const row of list.rows) {
      if (row.pending) expect(row.why).toBe('not yet closed');
      else if (row.id !== 'metrics') expect(row.why.length, row.id).toBeGreaterThan(0);
    }
    expect(new Set(list.rows.map((r) => r.id)).size).toBe(list.rows.length);
  });

  it("placeholders stand for a case's own values and come back from them", () => {
    const v = caseValues(7);
    const text = fill('/parties/MSISDN/{id}?x={payee2}&y={payee}&t={tag}', v);
    expect(text).toBe(`/parties/MSISDN/${v.values.id}?x=${v.names.payee2}&y=${v.names.payee}&t=${v.tag}`);
    expect(unfill(text, v)).toBe('/parties/MSISDN/{id}?x={payee2}&y={payee}&t={tag}');
  });
});

describe('judging differences', () => {
  const record = (status: number, fspHeader: string): CaseRecord => ({
    id: 'c1',
    request: { method: 'GET', path: '/x' },
    answer: { status, body: null },
    oracle: [],
    fsp: [{ fsp: '{payer}', method: 'PUT', url: '/a', headers: { 'fspiop-source': fspHeader }, body: null }],
    ledger: [],
  });
  const list = {
    rows: [{ id: 'r', case: 'c', original: 'o', ours: 'u', why: 'w' }],
    exceptions: [{ cases: ['c1'], field: 'fsp.headers', row: 'r' }],
  };

  it('accepts a listed difference and flags one that is not listed', () => {
    const diffs: Difference[] = compareCase(record(202, 'Hub'), record(400, 'x'));
    expect(diffs.map((d) => d.field).sort()).toEqual(['answer.status', 'fsp.headers.fspiop-source']);
    const verdict = judge(diffs, list, new Set(['c1']));
    expect(verdict.accepted.map((d) => d.field)).toEqual(['fsp.headers.fspiop-source']);
    expect(verdict.unexpected.map((d) => d.field)).toEqual(['answer.status']);
    expect(verdict.unused).toEqual([]);
  });

  it('flags a listed exception that no longer occurs', () => {
    const verdict = judge(compareCase(record(202, 'Hub'), record(202, 'Hub')), list, new Set(['c1']));
    expect(verdict.unused).toEqual([{ caseId: 'c1', field: 'fsp.headers', row: 'r' }]);
  });

  it('a different set of upstream requests is one difference of that upstream', () => {
    const other = { ...record(202, 'Hub'), fsp: [] };
    expect(compareCase(record(202, 'Hub'), other).map((d) => d.field)).toEqual(['fsp']);
  });
});
