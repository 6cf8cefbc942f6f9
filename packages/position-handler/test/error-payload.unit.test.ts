import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDefaults, readConfig } from '../src/config/index.js';
import type { ErrorName } from '../src/ledger/types.js';
import type { Envelope } from '../src/messages/decode.js';
import {
  DEFAULT_ERROR_HANDLING,
  type ErrorHandling,
  errorPayload,
  hubErrorNotification,
} from '../src/messages/notify.js';

// What central-ledger's error library (central-services-error-handling, run by scripts/record-original-errors.cjs
// under the install of central-ledger 19.5.5) writes for each of our errors under each ERROR_HANDLING setting;
// `errorHandling: null` is ERROR_HANDLING absent from a deployment's file.
interface Recorded {
  readonly provenance: Record<string, string>;
  readonly cases: {
    readonly name: ErrorName;
    readonly detail?: string;
    readonly outputs: { readonly errorHandling: ErrorHandling | null; readonly payload: Payload }[];
  }[];
}
interface Payload {
  readonly errorInformation: {
    readonly errorCode: string;
    readonly errorDescription: string;
    readonly extensionList?: { readonly extension: { readonly key: string; readonly value: string }[] };
  };
}
const recorded: Recorded = JSON.parse(
  readFileSync(new URL('./fixtures/original-errors.json', import.meta.url), 'utf8'),
);

/**
 * The `cause` extension is the original's stack trace: its frames name the machine's paths (ours names the
 * handler instead), so a cause is compared up to its first line, the error's name and message.
 */
function withoutFrames(payload: Payload): Payload {
  const list = payload.errorInformation.extensionList;
  if (!list) return payload;
  return {
    errorInformation: {
      ...payload.errorInformation,
      extensionList: {
        extension: list.extension.map((e) => (e.key === 'cause' ? { ...e, value: e.value.split('\n')[0] ?? '' } : e)),
      },
    },
  };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'position-error-handling-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The setting as our configuration reads it from a central-ledger file with this ERROR_HANDLING (or none). */
function fromFile(errorHandling: ErrorHandling | null): ErrorHandling {
  const file = join(dir, `${JSON.stringify(errorHandling).replace(/\W/g, '_')}.json`);
  writeFileSync(file, JSON.stringify(errorHandling === null ? { PORT: 3001 } : { ERROR_HANDLING: errorHandling }));
  const { config, notHonoured } = readConfig({ CONFIG_FILE: file });
  expect(notHonoured).toEqual([]);
  return { includeCauseExtension: config.errorCauseExtension, truncateExtensions: config.errorTruncateExtensions };
}

describe("error notifications' errorInformation against central-ledger's error library", () => {
  it('was recorded from the library itself, for every setting and the key absent', () => {
    expect(recorded.provenance.library).toMatch(/^@mojaloop\/central-services-error-handling /);
    const settings = new Set(recorded.cases.flatMap((c) => c.outputs.map((o) => JSON.stringify(o.errorHandling))));
    expect(settings.size).toBe(5);
  });

  for (const { name, detail, outputs } of recorded.cases) {
    for (const { errorHandling, payload } of outputs) {
      it(`${name}${detail ? ` (${detail.slice(0, 30)})` : ''} under ERROR_HANDLING ${JSON.stringify(errorHandling)}`, () => {
        const ours = errorPayload(name, detail, fromFile(errorHandling));
        expect(withoutFrames(ours)).toEqual(withoutFrames(payload));
        const causes = ours.errorInformation.extensionList?.extension ?? [];
        if (errorHandling === null || errorHandling.truncateExtensions) {
          for (const cause of causes) expect(cause.value.length).toBeLessThanOrEqual(128);
        } else {
          // Ours has frames too (one, naming the handler) where the original has its stack.
          for (const cause of causes) expect(cause.value.split('\n')[1]).toMatch(/^ {4}at mojafast position-handler/);
        }
      });
    }
  }

  it("defaults to central-ledger's repository config/default.json: a cause extension, not truncated", () => {
    expect({
      includeCauseExtension: configDefaults.errorCauseExtension,
      truncateExtensions: configDefaults.errorTruncateExtensions,
    }).toEqual(DEFAULT_ERROR_HANDLING);
    expect(errorPayload('LIQUIDITY').errorInformation.extensionList?.extension[0]?.key).toBe('cause');
    // Our own variables win over the file, as everywhere.
    const file = join(dir, 'chart.json');
    writeFileSync(file, JSON.stringify({ ERROR_HANDLING: { includeCauseExtension: false, truncateExtensions: true } }));
    expect(readConfig({ CONFIG_FILE: file, POSITION_ERROR_CAUSE_EXTENSION: 'true' }).config.errorCauseExtension).toBe(
      true,
    );
    expect(readConfig({ CONFIG_FILE: file, CLEDG_ERROR_HANDLING__includeCauseExtension: 'true' }).config).toMatchObject(
      {
        errorCauseExtension: true,
        errorTruncateExtensions: true,
      },
    );
  });

  it.each([
    ['CLEDG_ERROR_HANDLING__includeCauseExtension', { CLEDG_ERROR_HANDLING__includeCauseExtension: 'yes' }],
    ['CLEDG_ERROR_HANDLING__truncateExtensions', { CLEDG_ERROR_HANDLING__truncateExtensions: '1' }],
  ])('refuses a value the library would read otherwise than we do, naming %s', (key, env) => {
    expect(() => readConfig(env, { defaultFile: join(dir, 'absent') })).toThrow(new RegExp(`^${key} `));
  });

  it('refuses ERROR_HANDLING null (every error notification of the original would throw)', () => {
    const file = join(dir, 'null.json');
    writeFileSync(file, JSON.stringify({ ERROR_HANDLING: null }));
    expect(() => readConfig({ CONFIG_FILE: file })).toThrow(/^ERROR_HANDLING must be an object/);
  });

  it("an error notification carries the setting's errorInformation (the charts': no extensionList)", () => {
    const envelope: Envelope = {
      id: 't1',
      from: 'payer',
      to: 'payee',
      content: { headers: { 'fspiop-source': 'payer' }, payload: {} },
      metadata: { event: { type: 'prepare', action: 'prepare' } },
    };
    const sent = (errorHandling?: ErrorHandling) =>
      JSON.parse(
        hubErrorNotification(envelope, 't1', 'payer', 'prepare', 'LIMIT', undefined, {
          hubName: 'Hub',
          now: new Date(0),
          ...(errorHandling ? { errorHandling } : {}),
        }),
      ).content.payload;
    expect(sent({ includeCauseExtension: false, truncateExtensions: true })).toEqual({
      errorInformation: { errorCode: '4200', errorDescription: 'Payer limit error' },
    });
    expect(sent().errorInformation.extensionList.extension[0].value).toBe(
      'FSPIOPError\n    at mojafast position-handler (LIMIT)',
    );
  });
});
