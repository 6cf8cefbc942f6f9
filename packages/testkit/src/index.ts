export { registerOracle } from './als-admin.js';
export {
  type CentralLedgerOptions,
  centralLedgerAppDir,
  centralLedgerInstallDir,
  freePort,
  mlApiAdapterInstallDir,
  type PrivateCentralLedger,
  startCentralLedger,
} from './central-ledger.js';
export {
  type DashboardFixture,
  type DashboardMetric,
  prometheusSamples,
  readDashboardFixture,
} from './dashboard-metrics.js';
export {
  createTopic,
  type KafkaSecurity,
  secureKafkaConfig,
  type TestTopic,
  type TopicOptions,
  testKafka,
} from './kafka.js';
export { createDatabase, type DatabaseConnection, serverConnection, type TestDatabase } from './mysql.js';
export { uniqueName } from './names.js';
export { type SeededRandom, seededRandom } from './seed.js';
export {
  type InfraSettings,
  loadInfraSettings,
  parseEnvFile,
  readTlsCredentials,
  type TlsSettings,
} from './settings.js';
