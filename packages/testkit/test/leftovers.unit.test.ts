import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESOURCE_JOURNAL_ENV, readJournal, recordResource, testFileOf, undropped } from '../src/leftovers.js';

const saved = process.env[RESOURCE_JOURNAL_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[RESOURCE_JOURNAL_ENV];
  else process.env[RESOURCE_JOURNAL_ENV] = saved;
});

describe('the journal of databases and topics a run creates', () => {
  it('answers what was created and not dropped, with the test file that created it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leftovers-test-'));
    try {
      const journal = join(dir, 'journal.jsonl');
      process.env[RESOURCE_JOURNAL_ENV] = journal;
      recordResource('database', 'a_1', 'db:3306', 'created');
      recordResource('topic', 'a_1', 'k:9092', 'created');
      recordResource('database', 'b_2', 'db:3306', 'created');
      recordResource('database', 'a_1', 'db:3306', 'dropped');
      expect(undropped(readJournal(journal))).toEqual([
        { kind: 'topic', name: 'a_1', server: 'k:9092', file: 'packages/testkit/test/leftovers.unit.test.ts' },
        { kind: 'database', name: 'b_2', server: 'db:3306', file: 'packages/testkit/test/leftovers.unit.test.ts' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes nothing outside a test run, and reads a journal never written as empty', () => {
    delete process.env[RESOURCE_JOURNAL_ENV];
    expect(() => recordResource('database', 'x', 'db:3306', 'created')).not.toThrow();
    expect(readJournal(join(tmpdir(), 'no-such-journal.jsonl'))).toBe('');
    expect(undropped('')).toEqual([]);
  });

  it('finds the test file on a stack, past helpers', () => {
    const stack = [
      'Error',
      '    at recordResource (/r/packages/testkit/src/leftovers.ts:25:16)',
      '    at async createTestLedger (/r/packages/position-handler/test/helpers.ts:34:14)',
      '    at async /r/packages/position-handler/test/faults.test.ts:40:7',
    ].join('\n');
    expect(testFileOf(stack)).toBe('packages/position-handler/test/faults.test.ts');
    expect(testFileOf('Error\n    at main (/r/packages/bench/src/cli.ts:1:1)')).toBeUndefined();
  });
});
