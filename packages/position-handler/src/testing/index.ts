/**
 * `@mojafast/position-handler/testing`: fixtures for tests and benchmarks, not product API. Ledgers come from
 * the product's own provisioning (provisionLedger, also behind the `provision` command); these add transfers in
 * the states central-ledger's upstream handlers leave them in, and the position messages those handlers put on
 * the position topic.
 */
export { type LedgerSpec, type ProvisionedLedger, provisionLedger } from '../store/provision.js';
export {
  type GeneratedFxTransfer,
  type GeneratedTransfer,
  generateFxPositionMessages,
  generatePositionMessages,
  generateTransfers,
  type KeyedMessage,
} from './messages.js';
export {
  type FxTransferSpec,
  insertFxTransfers,
  insertTransfers,
  type ProvisionedFxState,
  type ProvisionedState,
  recordFxTransferStates,
  recordTransferStates,
  reserveTransfers,
  type TransferSpec,
} from './transfers.js';
