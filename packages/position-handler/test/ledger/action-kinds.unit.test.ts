import { describe, expect, it } from 'vitest';
import {
  BULK_ACTIONS,
  isBulkAction,
  isFxAction,
  isOneAtATimeAction,
  isPositionAction,
  POSITION_ACTIONS,
} from '../../src/ledger/types.js';

describe('the kinds of position action', () => {
  it('knows every action of both original handlers and nothing else', () => {
    expect(POSITION_ACTIONS).toHaveLength(16);
    for (const action of POSITION_ACTIONS) expect(isPositionAction(action)).toBe(true);
    for (const other of ['fulfil', 'PREPARE', 'fx-commit', 'bulk-reject', ''])
      expect(isPositionAction(other)).toBe(false);
  });

  it('sorts them: fx- ones act on an fxTransfer; the bulk ones and reject are the one-at-a-time handler’s', () => {
    expect(POSITION_ACTIONS.filter(isFxAction)).toEqual([
      'fx-prepare',
      'fx-reserve',
      'fx-timeout-reserved',
      'fx-abort',
      'fx-abort-validation',
    ]);
    expect(POSITION_ACTIONS.filter(isBulkAction)).toEqual(BULK_ACTIONS);
    expect(POSITION_ACTIONS.filter(isOneAtATimeAction)).toEqual([...BULK_ACTIONS, 'reject']);
  });
});
