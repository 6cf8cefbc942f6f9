import {
  type GeneratedTransfer,
  generatePositionMessages,
  generateTransfers,
  type ProvisionedLedger,
} from '@mojafast/position-handler/testing';
import type { DumpedMessage } from './dump.js';

export interface WorkloadSpec {
  readonly transfers: number;
  readonly dfsps: number;
  readonly currencies: number;
  readonly amount: string;
}

export const dfspNames = (count: number) => Array.from({ length: count }, (_, i) => `perffsp${i + 1}`);
export const currencyCodes = (count: number) =>
  ['USD', 'EUR', 'TZS', 'KES', 'XOF', 'ZAR', 'GBP', 'INR'].slice(0, count);

export function generateWorkload(spec: WorkloadSpec): GeneratedTransfer[] {
  if (spec.currencies > 8) throw new Error('--currencies is at most 8');
  return generateTransfers({
    transfers: spec.transfers,
    dfsps: dfspNames(spec.dfsps),
    currencies: currencyCodes(spec.currencies),
    amount: spec.amount,
  });
}

/** The messages central-ledger's prepare (or fulfil) handler would put on the position topic for these transfers (an abort: the fulfil handler's answer to a payee's error callback). */
export function positionMessages(
  transfers: readonly GeneratedTransfer[],
  action: 'prepare' | 'commit' | 'abort',
  ledger: ProvisionedLedger,
): DumpedMessage[] {
  return generatePositionMessages({
    transfers,
    action,
    accountOf: (dfsp, currency) => {
      const account = ledger.accounts.get(`${dfsp}:${currency}`);
      if (!account) throw new Error(`no account for ${dfsp} in ${currency}`);
      return account.position;
    },
  });
}
