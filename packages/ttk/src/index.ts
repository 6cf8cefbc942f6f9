export { type Judge, type JudgeOptions, startJudge, toolkitFsp } from './judge.js';
export { judgeReport, type KnownDifference, knownDifferencesFile, readKnownDifferences } from './known.js';
export {
  type AssertionFailure,
  type Collection,
  collectionsDir,
  describeFailures,
  type RunReport,
  readCollections,
  readReport,
} from './report.js';
export { installToolkit, startToolkit, type Toolkit, type ToolkitOptions } from './toolkit.js';
