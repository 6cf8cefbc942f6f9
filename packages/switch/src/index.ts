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
export { type CompareOptions, type Comparison, compareHandlers, type Hub, startHub } from './compare-handlers.js';
export * from './differences.js';
export { type DriverOptions, type Received, SwitchDriver } from './driver.js';
export * from './envelope.js';
export { fspRequest, sendToFront } from './http-front.js';
export { deserializeIlpPrepare, type IlpPrepare, newUlid, serializeIlpPrepare } from './ilp-packet.js';
export { Iso20022Requests, isoContentType } from './iso-requests.js';
export { type Lookups, lookUpThroughOurAls, partiesContentType } from './lookups.js';
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
