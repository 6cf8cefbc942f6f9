import { afterEach, describe, expect, it } from 'vitest';
import { getParties, newTraceId, type Stack, settled, startStack } from './helpers.js';

// ERROR_HANDLING of the original's file (includeCauseExtension, truncateExtensions) in the error callbacks
// the ALS sends, as central-services-error-handling's toApiErrorObject applies it (the recorded library
// answers: error-handling.unit.test.ts); synchronous error answers keep the library's defaults.

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function partyNotFound(config: Parameters<typeof startStack>[0]) {
  const stack = await startStack(config);
  stacks.push(stack);
  const traceId = newTraceId();
  // 40400001: the oracle simulator knows no FSP for it, so the lookup ends in a 3204 error callback.
  expect((await getParties(stack.als.url, 'MSISDN/40400001', traceId)).status).toBe(202);
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  await settled(stack.als);
  return {
    stack,
    body: JSON.parse(String(callback?.body)) as {
      errorInformation: {
        errorCode: string;
        errorDescription: string;
        extensionList?: { extension: { key: string; value: string }[] };
      };
    },
  };
}

describe('error callbacks and ERROR_HANDLING', () => {
  it('carry no cause with the file and charts value (includeCauseExtension false)', async () => {
    const { body } = await partyNotFound({});
    expect(body.errorInformation.errorCode).toBe('3204');
    expect(body.errorInformation.extensionList).toBeUndefined();
  });

  it('carry the cause, cut to 128 characters, when the deployment asks for it', async () => {
    const { body, stack } = await partyNotFound({ config: { errorCauseExtension: true } });
    const [cause, ...rest] = body.errorInformation.extensionList?.extension ?? [];
    expect(rest).toEqual([]);
    expect(cause?.key).toBe('cause');
    expect(cause?.value.startsWith(`FSPIOPError: ${body.errorInformation.errorDescription}`.slice(0, 128))).toBe(true);
    expect(cause?.value.length).toBeLessThanOrEqual(128);
    // A synchronous error answer is the library's default: no cause.
    const refused = await getParties(stack.als.url, 'NOPE/1', newTraceId());
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).errorInformation.extensionList).toBeUndefined();
  });

  it('carry the whole cause when truncateExtensions is false', async () => {
    const { body } = await partyNotFound({ config: { errorCauseExtension: true, truncateExtensions: false } });
    const cause = body.errorInformation.extensionList?.extension[0]?.value ?? '';
    expect(cause.split('\n')[0]).toBe(`FSPIOPError: ${body.errorInformation.errorDescription}`);
  });
});
