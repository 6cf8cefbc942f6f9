// What the other packages of this repository use (bench, deploy-check, switch, testkit): nothing more, so the
// rest stays free to change with the handler.
export type { PositionBus } from './bus/types.js';
export { configSchema, loadConfig } from './config/index.js';
export { type Amount, parseAmount } from './ledger/amount.js';
export {
  type PlanInput,
  type PlanResult,
  type PositionChangePlan,
  type StateChangePlan,
  TransferState,
} from './ledger/types.js';
export { busOptionsFromConfig, createBus } from './main.js';
export { decodeMessage } from './messages/decode.js';
export { createLogger, type Logger } from './observe/logger.js';
export { createMetrics } from './observe/metrics.js';
export { PositionRunner } from './runner/runner.js';
export { type BatchStore, type BatchTransaction, planAndWriteBatch } from './runner/unit-of-work.js';
export { dbSsl } from './security.js';
export { createKnex, createStorePool, endStorePool } from './store/db.js';
export { migrateLatest } from './store/migrations.js';
export { PositionStore } from './store/position-store.js';
export { type ProvisionedLedger, provisionLedger } from './store/provision.js';
