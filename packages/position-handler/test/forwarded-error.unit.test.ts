import { describe, expect, it } from 'vitest';
import { forwardedErrorPayload } from '../src/messages/notify.js';

// central-ledger 19.14.0 passes an abort's errorInformation on (createFSPIOPErrorFromErrorInformation, then
// toApiErrorObject(ERROR_HANDLING)); the switch suite compares the resulting callbacks with its own run.
const stack = (description: string) => `FSPIOPError: ${description}\n    at mojafast position-handler (ABORT_REJECTED)`;

describe("an abort's notification payload: the sender's errorInformation", () => {
  it('keeps the code and description as sent, and adds the cause extension under includeCauseExtension', () => {
    const sent = { errorCode: '5101', errorDescription: 'Payee rejected the transfer' };
    expect(forwardedErrorPayload(sent, { includeCauseExtension: false, truncateExtensions: true })).toEqual({
      errorInformation: sent,
    });
    expect(forwardedErrorPayload(sent, { includeCauseExtension: true, truncateExtensions: false })).toEqual({
      errorInformation: {
        ...sent,
        extensionList: { extension: [{ key: 'cause', value: stack(sent.errorDescription) }] },
      },
    });
  });

  it("keeps the sender's extensions, drops its cause without includeCauseExtension, prefixes it with one", () => {
    const sent = {
      errorCode: '5100',
      errorDescription: 'x'.repeat(200),
      extensionList: {
        extension: [
          { key: 'reason', value: 'r' },
          { key: 'cause', value: 'theirs' },
        ],
      },
    };
    const off = forwardedErrorPayload(sent, { includeCauseExtension: false, truncateExtensions: true });
    expect(off.errorInformation.errorDescription).toHaveLength(128);
    expect(off.errorInformation.extensionList).toEqual({ extension: [{ key: 'reason', value: 'r' }] });
    const on = forwardedErrorPayload(sent, { includeCauseExtension: true, truncateExtensions: false });
    expect(on.errorInformation.extensionList?.extension).toEqual([
      { key: 'reason', value: 'r' },
      { key: 'cause', value: `${stack(sent.errorDescription)}\ntheirs` },
    ]);
  });

  it('leaves no empty extensionList when only a cause was sent and causes are off', () => {
    const sent = {
      errorCode: '5100',
      errorDescription: 'd',
      extensionList: { extension: [{ key: 'cause', value: 'c' }] },
    };
    expect(forwardedErrorPayload(sent, { includeCauseExtension: false, truncateExtensions: true })).toEqual({
      errorInformation: { errorCode: '5100', errorDescription: 'd' },
    });
  });
});
