export { type Config, ConfigError, type ConfigValues, defaults, loadConfig, settings } from './config/index.js';
export { AlsError, type AlsErrorEntry, type AlsErrorName, AlsErrors } from './fspiop/errors.js';
export { type RunningAls, startAls } from './main.js';
