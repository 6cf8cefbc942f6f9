import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { createFailureReporter, type FailureLogger } from '../src/observe/failures.js';

describe('failure log rate limit', () => {
  it('one line per code and interval, which says how many like it were not logged', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const lines: [object, string][] = [];
      const log: FailureLogger = { warn: (f, m) => void lines.push([f, m]), error: (f, m) => void lines.push([f, m]) };
      const reporter = createFailureReporter(new Registry(), log, 1_000);
      const answer = { status: 400, errorCode: '3102', errorDescription: 'Missing mandatory element' };
      for (let i = 0; i < 3; i++) reporter.answered(answer);
      reporter.answered({ ...answer, errorCode: '3101' });
      expect(lines.map(([f]) => f)).toMatchObject([
        { errorCode: '3102', suppressedSinceLastLog: 0 },
        { errorCode: '3101', suppressedSinceLastLog: 0 },
      ]);
      vi.setSystemTime(Date.now() + 1_000);
      reporter.answered(answer);
      expect(lines[2]?.[0]).toMatchObject({ errorCode: '3102', suppressedSinceLastLog: 2 });
    } finally {
      vi.useRealTimers();
    }
  });
});
