export { type AdminSim, type AdminSimOptions, endpointList, type ParticipantSpec, startAdminSim } from './admin.js';
export {
  loadSimConfig,
  type SimConfig,
  type SimStartup,
  simConfigDefaults,
  simConfigSchema,
  simUsage,
} from './config.js';
export { type FaultOptions, type Latency, parseLatency } from './faults.js';
export { type Bind, httpDate, statusOf } from './http.js';
export { hashId, type OracleSim, type OracleSimOptions, type PartyEntry, startOracleSim } from './oracle.js';
export { isoPartyBody, type PayeeSim, type PayeeSimOptions, partyBody, startPayeeSim, versionOf } from './payee.js';
export {
  CallbackTimeoutError,
  type PayerSim,
  type PayerSimOptions,
  type ReceivedCallback,
  startPayerSim,
} from './payer.js';
export { type SimSet, type SimSetOptions, startSimSet } from './set.js';
