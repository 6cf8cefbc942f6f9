export { type Config, ConfigError, type ConfigValues, defaults, loadConfig, settings } from './config/index.js';
export { AlsError, type AlsErrorEntry, type AlsErrorName, AlsErrors } from './fspiop/errors.js';
// The hand-written hot-path pieces, for bench:micro's comparisons with the libraries they stand in for.
export { readBody } from './http/fspiop-plugin.js';
export { type RunningAls, startAls } from './main.js';
export { createCache } from './upstream/cache.js';
export { retryResetOnce } from './upstream/http-client.js';
