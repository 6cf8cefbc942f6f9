import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CentralLedgerAdmin,
  onboardDfsp,
  type RunningMlApiAdapter,
  startMlApiAdapter,
  startOurPositionHandler,
  writeSwitchConfig,
} from '@mojafast/switch';
import { loadInfraSettings, type PrivateCentralLedger, startCentralLedger, testKafka } from '@mojafast/testkit';
import { type OriginalConfig, originalAls, oursDropIn } from '../als/original.js';
import { stateDir } from '../load/paths.js';
import { pidFrom, type Service, spawnUntilReadyLine } from '../load/processes.js';
import { PayerFsp } from './payer.js';
import type { Stack } from './results.js';
import { gateTopics, type TopicGrowth } from './validity.js';

/**
 * The switch bench:switch measures, once per invocation: a private central-ledger 19.14.0 (its API and its
 * prepare, fulfil and other handlers; testkit's startCentralLedger) on the shared Kafka and MariaDB,
 * ml-api-adapter 16.10.1 in front, the payee FSP and oracle in a process of their own, the payer FSP in the
 * generator, both DFSPs onboarded through the admin API. Per run, `startPair` adds one stack's ALS and
 * position handler: the originals' or ours; the ALS always on the same port, where the payee sends PUT /parties.
 */
export interface SwitchStack {
  readonly cl: PrivateCentralLedger;
  readonly front: RunningMlApiAdapter;
  readonly payer: PayerFsp;
  readonly fsps: Service & { ready: { oracle: string; payee: string } };
  readonly alsUrl: string;
  readonly payerName: string;
  readonly payeeName: string;
  /** Sums of the end offsets of the gate's topics. */
  topicEnds(): Promise<TopicGrowth>;
  /** Starts one stack's ALS and position handler; `pids` are every process to measure, by name. */
  startPair(stack: Stack): Promise<{ pids: Map<string, number>; stop(): Promise<void> }>;
  close(): Promise<void>;
}

export interface SwitchStackOptions {
  readonly alsPort: number;
  readonly alsConfig: OriginalConfig;
  readonly seed: string;
  readonly progress: (line: string) => void;
}

const fspsProcess = fileURLToPath(new URL('../../dist/switch/fsps-process.js', import.meta.url));
const plenty = { USD: { netDebitCap: '1000000000', fundsIn: '1000000000' } };

export async function startSwitchStack(options: SwitchStackOptions): Promise<SwitchStack> {
  const brokers = loadInfraSettings().kafka.brokers;
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    // central-ledger logs every message at info by default: at warn the switch spends its CPU on the work.
    process.env.CENTRAL_LEDGER_LOG_LEVEL ??= 'warn';
    options.progress('starting a private central-ledger 19.14.0');
    const cl = await startCentralLedger();
    closers.push(() => cl.stop());
    const admin = new CentralLedgerAdmin(cl.adminUrl);
    await admin.setUpHub(['USD']);
    const payer = await PayerFsp.start();
    closers.push(() => payer.close());
    options.progress('starting ml-api-adapter 16.10.1');
    const front = await startMlApiAdapter(cl, { brokers });
    closers.push(() => front.stop());
    const alsUrl = `http://127.0.0.1:${options.alsPort}`;
    const fsps = await spawnUntilReadyLine<{ oracle: string; payee: string }>({
      name: 'payee FSP and oracle',
      command: process.execPath,
      args: [fspsProcess, '--als-url', alsUrl, '--front-url', front.url, '--seed', options.seed],
    });
    closers.push(() => fsps.stop());
    const payerName = 'payerfsp';
    // The oracle simulator resolves every MSISDN to payeefsp1 (its generated mode with one FSP).
    const payeeName = 'payeefsp1';
    await onboardDfsp(admin, { name: payerName, currencies: plenty, callbackBase: payer.url });
    await onboardDfsp(admin, { name: payeeName, currencies: plenty, callbackBase: fsps.ready.payee });
    const kafkaAdmin = testKafka(loadInfraSettings(), 'mojafast-bench-switch').admin();
    await kafkaAdmin.connect();
    closers.push(() => kafkaAdmin.disconnect());
    const topics = gateTopics(cl.prefix);
    const ends = async (topic: string) =>
      (await kafkaAdmin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
    const runDir = cl.env.CENTRAL_LEDGER_RUN_DIR as string;
    const config = join(runDir, 'bench-switch-central-ledger.json');
    writeSwitchConfig(cl, config);
    const serverPids = new Map<string, number>();
    for (const [name, file] of [
      ['central-ledger-handlers', join(runDir, 'handlers.pid')],
      ['central-ledger-api', join(runDir, 'api.pid')],
      ['kafka', join(stateDir, 'kafka', 'kafka.pid')],
      ['mariadb', join(stateDir, 'mariadb', 'mysqld.pid')],
    ] as const) {
      const pid = await pidFrom(file);
      if (pid) serverPids.set(name, pid);
    }
    const sims = { admin: cl.adminUrl, oracle: fsps.ready.oracle, payee: fsps.ready.payee };
    return {
      cl,
      front,
      payer,
      fsps,
      alsUrl,
      payerName,
      payeeName,
      topicEnds: async () => ({
        prepare: await ends(topics.prepare),
        fulfil: await ends(topics.fulfil),
        notification: await ends(topics.notification),
      }),
      async startPair(stack) {
        const als = await (stack === 'ours' ? oursDropIn : originalAls)(options.alsConfig)(sims, options.alsPort);
        let stopPosition: () => Promise<void>;
        let positionPid: number | undefined;
        try {
          if (stack === 'ours') {
            const ours = await startOurPositionHandler(config);
            stopPosition = () => ours.stop();
            positionPid = ours.child.pid;
          } else {
            await cl.startOriginalPosition();
            stopPosition = () => cl.stopOriginalPosition();
            positionPid = await pidFrom(join(runDir, 'position.pid'));
          }
        } catch (error) {
          await als.stop();
          throw error;
        }
        const pids = new Map<string, number>([...als.pids, ...serverPids]);
        if (positionPid) pids.set('position', positionPid);
        if (front.child.pid) pids.set('ml-api-adapter', front.child.pid);
        if (fsps.child.pid) pids.set('fsps', fsps.child.pid);
        pids.set('bench', process.pid);
        return {
          pids,
          stop: async () => {
            await stopPosition();
            await als.stop();
          },
        };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
