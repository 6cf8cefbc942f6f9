import { describe, expect, it } from 'vitest';
import { markdownTable } from '../src/report/table.js';

describe('markdownTable', () => {
  it('writes a header, a rule and a row per row, escaping a | inside a cell', () => {
    expect(markdownTable(['a', 'b'], [['1', 'x|y']])).toBe('| a | b |\n|---|---|\n| 1 | x\\|y |');
  });

  it('marks right-aligned columns in the rule', () => {
    expect(markdownTable(['name', 'n'], [['x', '2']], { align: ['left', 'right'] })).toBe(
      '| name | n |\n|---|---:|\n| x | 2 |',
    );
  });

  it('pads every column to its widest cell for a terminal', () => {
    expect(markdownTable(['a', 'bb'], [['ccc', 'd']], { pad: true })).toBe('| a   | bb |\n| --- | -- |\n| ccc | d  |');
  });
});
