export { type Case, type CaseValues, caseValues, type FspSpec } from './case.js';
export { compareCase, compareRuns, type Difference, formatDifferences } from './compare.js';
export { corpus } from './corpus.js';
export { type AlsEnvOptions, alsEnv } from './env.js';
export {
  type DifferenceRow,
  type Exception,
  type ExceptionList,
  exceptionsFile,
  type Judgement,
  judge,
  loadExceptions,
} from './exceptions.js';
export { type Fixture, ORIGINAL, originalFixture, type Provenance, readFixture, writeFixture } from './fixtures.js';
export type { CaseRecord, UpstreamRequest } from './normalise.js';
export { type RunOptions, type RunRecord, runCorpus, type Target } from './runner.js';
export { type OracleScript, type ParticipantState, type Received, RecordingSims } from './sims.js';
export { type Suite, type SuiteName, suites } from './suites.js';
