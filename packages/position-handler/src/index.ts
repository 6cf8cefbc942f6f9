export { chunkBySize } from './bus/chunk.js';
export { createKafkajsBus } from './bus/kafkajs-bus.js';
export { createPlatformaticBus } from './bus/platformatic-bus.js';
export type { BusOptions, InboundMessage, OutboundMessage, PartitionBatch, PositionBus } from './bus/types.js';
export { ConfigError, configDefaults, configSchema, loadConfig, type PositionConfig } from './config/index.js';
export * from './ledger/accounts.js';
export { type Amount, formatAmount, parseAmount } from './ledger/amount.js';
export { handlerErrors } from './ledger/errors.js';
export { planBatch } from './ledger/plan.js';
export * from './ledger/types.js';
export { busOptionsFromConfig, createBus, type PositionService, startPositionService } from './main.js';
export { decodeMessage, MalformedMessageError, type PositionMessage } from './messages/decode.js';
export {
  type GeneratedFxTransfer,
  type GeneratedTransfer,
  generateFxPositionMessages,
  generatePositionMessages,
  generateTransfers,
  type KeyedMessage,
} from './messages/generate.js';
export { notificationFor } from './messages/notify.js';
export type { Logger } from './observe/logger.js';
export { createMetrics } from './observe/metrics.js';
export { PositionRunner } from './runner/runner.js';
export { type BatchStore, type BatchTransaction, type LockedFacts, planAndWriteBatch } from './runner/unit-of-work.js';
export { createKnex, type DbSettings } from './store/db.js';
export { migrateLatest, positionMigrationSource } from './store/migrations.js';
export { PositionStore } from './store/position-store.js';
export {
  type FxTransferSpec,
  insertFxTransfers,
  insertTransfers,
  type LedgerSpec,
  type ProvisionedLedger,
  provisionLedger,
  type TransferSpec,
} from './store/provision.js';
