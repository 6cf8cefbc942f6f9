export { chunkBySize } from './bus/chunk.js';
export { createPlatformaticBus } from './bus/platformatic-bus.js';
export {
  type BusOptions,
  type InboundMessage,
  type KafkaSecurity,
  type OutboundMessage,
  type PartitionBatch,
  PLAINTEXT,
  type PositionBus,
} from './bus/types.js';
export { ConfigError, configDefaults, configSchema, loadConfig, type PositionConfig } from './config/index.js';
export * from './ledger/accounts.js';
export { type Amount, formatAmount, parseAmount } from './ledger/amount.js';
export { handlerErrors } from './ledger/errors.js';
export { planBatch } from './ledger/plan.js';
export * from './ledger/types.js';
export { busOptionsFromConfig, createBus, type PositionService, startPositionService } from './main.js';
export { decodeMessage, MalformedMessageError, type PositionMessage } from './messages/decode.js';
export { notificationFor } from './messages/notify.js';
export { createLogger, handlerLogger, type Logger, type LogLevel } from './observe/logger.js';
export { createMetrics } from './observe/metrics.js';
export { PositionRunner } from './runner/runner.js';
export { type BatchStore, type BatchTransaction, type LockedFacts, planAndWriteBatch } from './runner/unit-of-work.js';
export { dbSsl, kafkaSecurity, SecureConnectError, secureConnectFailure } from './security.js';
export { createKnex, createStorePool, type DbSettings, type DbSsl, endStorePool } from './store/db.js';
export { migrateLatest, positionMigrationSource } from './store/migrations.js';
export { PositionStore } from './store/position-store.js';
export { type LedgerSpec, type ProvisionedLedger, provisionLedger } from './store/provision.js';
