import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

describe('createLogger', () => {
  it('writes one JSON line per entry: level as a word, ISO time, fields, msg; below the level nothing', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line) => lines.push(line) } });
    logger.info({ topics: ['a'] }, 'started');
    logger.debug('not written');
    logger.error({ error: 'boom' }, 'stop failed');
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith('\n'))).toBe(true);
    const [first, second] = lines.map((line) => JSON.parse(line));
    expect(first).toMatchObject({ level: 'info', pid: process.pid, topics: ['a'], msg: 'started' });
    expect(new Date(first.time).toISOString()).toBe(first.time);
    expect(second).toMatchObject({ level: 'error', error: 'boom', msg: 'stop failed' });
  });

  it('writes nothing at silent', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'silent', destination: { write: (line) => lines.push(line) } });
    logger.error('dropped');
    expect(lines).toEqual([]);
  });
});
