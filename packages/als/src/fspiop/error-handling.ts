import type { ErrorInformation } from '@mojafast/fspiop';

/**
 * The original's `ERROR_HANDLING` (config/default.json), the options its error callbacks' bodies are built
 * with: `FSPIOPError.toApiErrorObject(Config.ERROR_HANDLING)` of central-services-error-handling (13.1.6 in
 * v17.16.1). Its synchronous error answers use the library's defaults (no cause, truncated) whatever the file
 * says, so only error callbacks take these.
 */
export interface ErrorHandling {
  /** includeCauseExtension: a `cause` extension holding the error's stack. */
  readonly includeCauseExtension: boolean;
  /** truncateExtensions: every extension value cut to the API's ExtensionValue maximum. */
  readonly truncateExtensions: boolean;
}

/** ExtensionValue's maximum length in the FSPIOP API (the library's MojaloopModelTypes). */
export const EXTENSION_VALUE_MAX = 128;

/** The extension keys the library treats as the cause (Enums.Internal.FSPIOPError.ExtensionsKeys). */
const causeKeys = new Set(['cause', '_cause']);

/**
 * `information` as toApiErrorObject writes it with these options. With includeCauseExtension, `cause()`
 * gives the stack, added as the last extension (prefixed to an existing `cause`'s value); without, any
 * `cause`/`_cause` extension is removed and an empty list dropped. Then, with truncateExtensions, each value
 * is cut to 128 characters. Answers `information` itself when nothing changes (the common case, no copy).
 */
export function withErrorHandling(
  information: ErrorInformation,
  options: ErrorHandling,
  cause: () => string,
): ErrorInformation {
  let extensions = information.extensionList?.extension;
  if (options.includeCauseExtension) {
    const stack = cause();
    const existing = extensions?.find((extension) => extension.key === 'cause');
    extensions = existing
      ? (extensions ?? []).map((e) => (e === existing ? { key: e.key, value: `${stack}\n${e.value}` } : e))
      : [...(extensions ?? []), { key: 'cause', value: stack }];
  } else if (extensions?.some((extension) => causeKeys.has(extension.key))) {
    extensions = extensions.filter((extension) => !causeKeys.has(extension.key));
  }
  if (options.truncateExtensions && extensions?.some((e) => e.value.length > EXTENSION_VALUE_MAX))
    extensions = extensions.map((e) =>
      e.value.length > EXTENSION_VALUE_MAX ? { key: e.key, value: e.value.slice(0, EXTENSION_VALUE_MAX) } : e,
    );
  if (extensions === information.extensionList?.extension) return information;
  const { extensionList: _dropped, ...rest } = information;
  return extensions === undefined || extensions.length === 0
    ? rest
    : { ...rest, extensionList: { extension: extensions } };
}

/**
 * The `cause` value of an error callback: the library's is the FSPIOPError's stack (`FSPIOPError: <message>`
 * then its frames, then its cause's stack). Ours names the error the same way, then the frames of the error
 * the flow failed with, where it has any.
 */
export function causeOf(information: ErrorInformation, error: unknown): string {
  const head = `FSPIOPError: ${information.errorDescription}`;
  const stack = error instanceof Error ? error.stack : undefined;
  const frames = stack?.split('\n').filter((line) => line.startsWith('    at ')) ?? [];
  return frames.length === 0 ? head : `${head}\n${frames.join('\n')}`;
}
