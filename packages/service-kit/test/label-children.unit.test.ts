import { describe, expect, it } from 'vitest';
import { childrenByPair } from '../src/label-children.js';

describe('childrenByPair', () => {
  it('makes one child per pair of label values and hands the same one back after', () => {
    const made: string[] = [];
    const child = childrenByPair((action: string, result: string) => {
      made.push(`${action}/${result}`);
      return { action, result };
    });
    const first = child('prepare', 'applied');
    expect(child('prepare', 'applied')).toBe(first);
    expect(child('prepare', 'refused')).not.toBe(first);
    expect(child('commit', 'applied')).toEqual({ action: 'commit', result: 'applied' });
    expect(made).toEqual(['prepare/applied', 'prepare/refused', 'commit/applied']);
  });
});
