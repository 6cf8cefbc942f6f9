export {
  type ErrorInformation,
  errorInformation,
  FspiopError,
  type FspiopErrorDefinition,
  type FspiopErrorName,
  fspiopErrorByCode,
} from './error-codes.js';
