export { ConfigError, type ConfigErrorClass } from './config-error.js';
export { renderSettings, withSettings } from './config-page.js';
export { defineEnvConfig, type EnvConfig, type EnvSchema, type Setting, type SettingType } from './env-config.js';
export { FastCounter, FastHistogram, type FastHistogramOptions, type HistogramChild } from './fast-metrics.js';
export { childrenByPair } from './label-children.js';
export { abortableDelay, runService, type ServiceRun } from './lifecycle.js';
export { createLogger, type Logger, type LoggerOptions, type LogLevel } from './logger.js';
export {
  collectOriginalProcessMetrics,
  METRIC_PREFIX_PATTERN,
  metricLabelsText,
  ORIGINAL_HISTOGRAM_BUCKETS,
  type OriginalMetricsOptions,
  originalMetricsDefaults,
  parseMetricLabels,
  withDefaultLabels,
} from './metric-labels.js';
export {
  type HealthReport,
  healthReport,
  type ObserveServer,
  type ObserveServerOptions,
  type ServiceHealth,
  startObserveServer,
} from './observe-server.js';
export { packageVersion } from './package-version.js';
export { type CpuProfiler, type CpuProfilerOptions, createCpuProfiler } from './profiler.js';
export {
  asText,
  deepMerge,
  keyName,
  leaves,
  type OriginalSource,
  pathKey,
  rcEnvOverrides,
  readOriginalSource,
  type Tree,
  valueAt,
} from './rc-source.js';
export {
  closeFailure,
  createResources,
  type ResourceFailure,
  type ResourceHooks,
  type Resources,
} from './resources.js';
export {
  type About,
  type ConfigOf,
  type Declared,
  type DeclaredConfig,
  defineSettings,
  type Json,
  type Listed,
  setting,
  type ValueOf,
} from './settings.js';
