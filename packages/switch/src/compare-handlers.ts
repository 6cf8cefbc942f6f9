import { join } from 'node:path';
import { loadInfraSettings, type PrivateCentralLedger, startCentralLedger } from '@mojafast/testkit';
import { CentralLedgerAdmin } from './admin.js';
import { SwitchDriver } from './driver.js';
import { CallbackRecorder, type FspRequest, type Recorded } from './http-front.js';
import { newUlid } from './ilp-packet.js';
import { type RunningMlApiAdapter, startMlApiAdapter } from './ml-api-adapter.js';
import { type RunningProcess, startOurPositionHandler, writeSwitchConfig } from './processes.js';
import { type Observation, runScenarios, type ScenarioRun } from './scenarios.js';

/**
 * The suites' common run: one private central-ledger 19.14.0 (its hub accounts in USD and EUR), every scenario
 * with our position handler on its position topic, then, on the same switch and consumer group, with
 * central-ledger's batch position handler in its place, as an operator swaps one for the other. Each run's
 * DFSPs are its own. The FSPs speak either through ml-api-adapter over HTTP (in FSPIOP or ISO 20022 mode, their
 * callbacks recorded as received) or, without it, as ml-api-adapter's messages on the topics.
 */
export interface Hub {
  readonly sw: PrivateCentralLedger;
  readonly admin: CentralLedgerAdmin;
}

export async function startHub(): Promise<Hub> {
  // Its timeout handler looks every 2 s (15 s by default), so the expiry scenarios take seconds.
  const sw = await startCentralLedger({ timeoutCron: '*/2 * * * * *' });
  const admin = new CentralLedgerAdmin(sw.adminUrl);
  await admin.setUpHub(['USD', 'EUR']);
  return { sw, admin };
}

export interface Comparison {
  readonly ours: Observation[];
  readonly original: Observation[];
  /** With ml-api-adapter in front: the FSPs' requests to it and the callbacks they received, both runs. */
  readonly sent?: readonly FspRequest[];
  readonly received?: readonly Recorded[];
}

export interface CompareOptions {
  /** ml-api-adapter in front with this API_TYPE; without it, the messages go straight onto the topics. */
  readonly front?: 'fspiop' | 'iso20022';
}

export async function compareHandlers({ sw, admin }: Hub, options: CompareOptions = {}): Promise<Comparison> {
  const brokers = loadInfraSettings().kafka.brokers;
  const started: { stop(): Promise<void> }[] = [];
  const keep = <T extends { stop(): Promise<void> }>(x: T): T => {
    started.push(x);
    return x;
  };
  try {
    let front: RunningMlApiAdapter | undefined;
    let recorder: CallbackRecorder | undefined;
    if (options.front) {
      recorder = await CallbackRecorder.start();
      keep({ stop: () => (recorder as CallbackRecorder).close() });
      front = keep(await startMlApiAdapter(sw, { brokers, apiType: options.front }));
    }
    const driver = keep(
      await SwitchDriver.start({ brokers, prefix: sw.prefix, front: front?.url, apiType: options.front }),
    );
    const run = (tag: string): ScenarioRun => ({
      driver,
      admin,
      tag,
      // Without ml-api-adapter nothing listens there: the callbacks are read off the notification topic.
      callbackBase: recorder?.url ?? 'http://127.0.0.1:9/fsp',
      recorder,
      stepTimeoutMs: 20_000,
      expiryTimeoutMs: 20_000,
      // ISO 20022's identifiers (PmtId.TxId, EndToEndId) are ULIDs.
      newId: options.front === 'iso20022' ? () => newUlid() : undefined,
    });
    const config = join(sw.env.CENTRAL_LEDGER_RUN_DIR as string, 'central-ledger.json');
    writeSwitchConfig(sw, config);
    const ours: RunningProcess = keep(await startOurPositionHandler(config));
    const oursObserved = await runScenarios(run('o'));
    await ours.stop();
    await sw.startOriginalPosition();
    keep({ stop: () => sw.stopOriginalPosition() });
    const originalObserved = await runScenarios(run('c'));
    return {
      ours: oursObserved,
      original: originalObserved,
      sent: recorder ? [...driver.sent] : undefined,
      received: recorder ? [...recorder.received] : undefined,
    };
  } finally {
    for (const x of started.reverse()) await x.stop();
  }
}
