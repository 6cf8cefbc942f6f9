export {
  type Account,
  AdminError,
  CentralLedgerAdmin,
  type DfspSpec,
  dfspEndpoints,
  onboardDfsp,
  type Position,
} from './admin.js';
export * from './batch-cases.js';
export {
  completedTimestamp,
  type FxSpec,
  fxTransferBody,
  newSecret,
  type Secret,
  type TransferSpec,
  transferBody,
} from './bodies.js';
export {
  type Callback,
  type CallbackKind,
  decodePayload,
  type NotificationOutcome,
  type NotificationValue,
  notificationCallbacks,
} from './callbacks.js';
export * from './differences.js';
export { type DriverOptions, type Received, SwitchDriver } from './driver.js';
export * from './envelope.js';
export { fspRequest, sendToFront } from './http-front.js';
export { type MlApiAdapterOptions, type RunningMlApiAdapter, startMlApiAdapter } from './ml-api-adapter.js';
export {
  deepMerge,
  packageEntry,
  type RunningProcess,
  startOurAls,
  startOurPositionHandler,
  startProcess,
  waitForLog,
  writeSwitchConfig,
} from './processes.js';
export * from './scenarios.js';
