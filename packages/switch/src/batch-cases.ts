import { Kafka, logLevel } from 'kafkajs';
import type { CentralLedgerAdmin } from './admin.js';
import { completedTimestamp, fxTransferBody, newSecret, transferBody } from './bodies.js';
import type { SwitchDriver } from './driver.js';
import { type FxTransferBody, fulfilMessage, newId, prepareMessage, type TransferBody } from './envelope.js';
import { type Observation, observe, onboardScenario, type Scenario, type ScenarioContext } from './scenarios.js';

/**
 * What one position batch of central-ledger's batch topic does with messages the switch's own producers put
 * there and with ones they never put there, with either handler: the handler is stopped while the messages are
 * queued, so on its start they reach it in one batch (central-ledger's consumer at batch size 100 takes the
 * partition's backlog in one fetch).
 * - `batch-order`: an fx-prepare and then a plain prepare of the same payer account, each within its net debit
 *   cap but not both;
 * - `batch-stray`: a bulk-prepare (made by the switch's prepare handler, which sends it to the one-at-a-time
 *   topic, then copied to the batch topic as a deployment mapping every position action to it would send it)
 *   and a reject of a reserved transfer (nothing in central-ledger 19.14.0 sends one; keyed as its
 *   predecessors keyed it, by the payer's account).
 * Observed as the scenarios are, plus what reached the bulk-processing topic and whether the consumer group
 * committed the batch topic to its end.
 */
export interface BatchCaseRun {
  readonly driver: SwitchDriver;
  readonly admin: CentralLedgerAdmin;
  readonly brokers: readonly string[];
  readonly tag: string;
  readonly callbackBase: string;
  readonly stepTimeoutMs: number;
  /** Starts and stops the position handler under test on the switch's batch topic and consumer group. */
  readonly startHandler: () => Promise<void>;
  readonly stopHandler: () => Promise<void>;
}

const usd = (netDebitCap: string) => ({ USD: { netDebitCap, fundsIn: '1000' } });
const usdEur = (netDebitCap: string) => ({
  USD: { netDebitCap, fundsIn: '1000' },
  EUR: { netDebitCap, fundsIn: '1000' },
});

/** The cases' DFSPs; the scenario shape gives them names, onboarding and the observation. */
export const batchCases: readonly Scenario[] = [
  {
    name: 'batch-order',
    title: 'one batch: an fx-prepare, then a prepare of the same payer account; the cap holds one of them',
    dfsps: {
      payer: { currencies: usdEur('100') },
      payee: { currencies: usd('1000') },
      fxp: { currencies: usdEur('1000') },
    },
    expected: { positions: {}, states: {} },
    steps: async () => {},
  },
  {
    name: 'batch-stray',
    title: 'one batch: a bulk-prepare and a reject on the batch topic',
    dfsps: { payer: { currencies: usd('1000') }, payee: { currencies: usd('1000') } },
    expected: { positions: {}, states: {} },
    steps: async () => {},
  },
];

export async function runBatchCases(run: BatchCaseRun): Promise<Observation[]> {
  const { driver, admin } = run;
  const prefix = driver.prefix;
  const batchTopic = `${prefix}topic-transfer-position-batch`;
  // central-ledger's consumer group of the batch topic (KAFKA.CONSUMER.TRANSFER.POSITION_BATCH), prefixed as the
  // private switch prefixes every group; ours reads the same configuration.
  const groupId = `${prefix}cl-group-transfer-position-batch`;
  const scenarioRun = {
    driver,
    admin,
    tag: run.tag,
    callbackBase: run.callbackBase,
    stepTimeoutMs: run.stepTimeoutMs,
    expiryTimeoutMs: run.stepTimeoutMs,
  };
  const order = await onboardScenario(scenarioRun, batchCases[0] as Scenario, 0);
  const stray = await onboardScenario(scenarioRun, batchCases[1] as Scenario, 1);
  const positionAccount = async (ctx: ScenarioContext, currency: string) => {
    const account = (await admin.accounts(ctx.names.payer)).find(
      (a) => a.ledgerAccountType === 'POSITION' && a.currency === currency,
    );
    if (!account) throw new Error(`${ctx.names.payer} has no ${currency} position account`);
    return String(account.id);
  };

  const kafka = new Kafka({
    clientId: 'mojafast-switch-batch-cases',
    brokers: [...run.brokers],
    logLevel: logLevel.ERROR,
  });
  const kafkaAdmin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  // What the handlers send to the bulk-processing topic, and the one-at-a-time topic the bulk-prepare comes from.
  const reader = kafka.consumer({
    groupId: `${prefix}mojafast-batch-cases-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: 50,
  });
  const seen: { topic: string; key: string; value: string; action: string; id: string }[] = [];
  await kafkaAdmin.connect();
  await producer.connect();
  await reader.connect();
  try {
    const bulkTopic = `${prefix}topic-bulk-processing`;
    const oneAtATime = `${prefix}topic-transfer-position`;
    await kafkaAdmin.createTopics({ topics: [{ topic: bulkTopic, numPartitions: 1 }] });
    await reader.subscribe({ topics: [bulkTopic, oneAtATime], fromBeginning: true });
    await reader.run({
      eachMessage: async ({ topic, message }) => {
        const value = message.value?.toString('utf8') ?? '';
        const parsed = JSON.parse(value) as {
          id?: string;
          content?: { uriParams?: { id?: string } };
          metadata?: { event?: { action?: string } };
        };
        seen.push({
          topic,
          key: message.key?.toString('utf8') ?? '',
          value,
          action: parsed.metadata?.event?.action ?? '',
          id: parsed.content?.uriParams?.id ?? parsed.id ?? '',
        });
      },
    });

    // The reject's transfer, reserved first by the handler under test.
    await run.startHandler();
    const reserved = await stray.prepare('T4', { currency: 'USD', amount: '10' });
    if (!reserved.notified) throw new Error('the handler did not reserve the reject case transfer');
    await run.stopHandler();

    const end = async () =>
      (await kafkaAdmin.fetchTopicOffsets(batchTopic)).reduce((sum, p) => sum + Number(p.high), 0);
    const before = await end();
    // A POST from the payer as ml-api-adapter produces it, its transfer labelled in the case's context.
    const posted = (ctx: ScenarioContext, label: string, body: TransferBody | FxTransferBody) => {
      if ('commitRequestId' in body) {
        ctx.ids.set(label, {
          id: body.commitRequestId,
          resource: 'fxTransfers',
          from: body.initiatingFsp,
          to: body.counterPartyFsp,
        });
      } else {
        ctx.ids.set(label, { id: body.transferId, resource: 'transfers', from: body.payerFsp, to: body.payeeFsp });
      }
      return prepareMessage(prefix, body);
    };

    // The bulk-prepare: the switch's prepare handler saves the transfer and sends its position message.
    const bulkBody = transferBody(
      { payer: stray.names.payer, payee: stray.names.payee, currency: 'USD', amount: '10' },
      newSecret(),
    );
    const bulk = posted(stray, 'T3', bulkBody);
    bulk.envelope.metadata.event.action = 'bulk-prepare';
    await driver.send({ ...bulk, value: JSON.stringify(bulk.envelope) });
    const bulkPosition = await waitUntil(
      () => seen.find((m) => m.topic === oneAtATime && m.id === bulkBody.transferId && m.action === 'bulk-prepare'),
      run.stepTimeoutMs,
      "the prepare handler's bulk-prepare position message",
    );
    await producer.send({
      topic: batchTopic,
      acks: -1,
      messages: [{ key: bulkPosition.key, value: bulkPosition.value }],
    });

    // The reject: the payee's PUT with ABORTED, forwarded to the position topic as central-ledger 17 did.
    const t4 = stray.entry('T4');
    const reject = fulfilMessage(prefix, t4.id, t4.to, t4.from, {
      completedTimestamp: completedTimestamp(),
      transferState: 'ABORTED',
    }).envelope;
    const rejectValue = {
      ...reject,
      metadata: { ...reject.metadata, event: { ...reject.metadata.event, type: 'position', action: 'reject' } },
    };
    await producer.send({
      topic: batchTopic,
      acks: -1,
      messages: [{ key: await positionAccount(stray, 'USD'), value: JSON.stringify(rejectValue) }],
    });

    // The order case: the fx-prepare first, then the prepare, one after the other through the prepare handler.
    const t1 = newId();
    const fxBody = fxTransferBody(
      {
        payer: order.names.payer,
        fxp: order.names.fxp,
        determiningTransferId: t1,
        source: { currency: 'USD', amount: '80' },
        target: { currency: 'EUR', amount: '72' },
      },
      newSecret(),
    );
    await driver.send(posted(order, 'F1', fxBody));
    await waitUntil(
      async () => ((await end()) >= before + 3 ? true : undefined),
      run.stepTimeoutMs,
      'the fx-prepare on the batch topic',
    );
    const plainBody = transferBody(
      { payer: order.names.payer, payee: order.names.payee, currency: 'USD', amount: '80' },
      newSecret(),
    );
    await driver.send(posted(order, 'T2', plainBody));
    await waitUntil(
      async () => ((await end()) >= before + 4 ? true : undefined),
      run.stepTimeoutMs,
      'the prepare on the batch topic',
    );

    await run.startHandler();
    // Both prepares get an answer whatever the handler decides; then the group has committed the whole batch.
    await driver.waitFor('of F1', (r) => r.id === fxBody.commitRequestId, run.stepTimeoutMs);
    await driver.waitFor('of T2', (r) => r.id === plainBody.transferId, run.stepTimeoutMs);
    const committedToEnd = async () => {
      const high = await kafkaAdmin.fetchTopicOffsets(batchTopic);
      const [group] = await kafkaAdmin.fetchOffsets({ groupId, topics: [batchTopic] });
      return high.every((p) => {
        const c = group?.partitions.find((x) => x.partition === p.partition);
        return Number(p.high) === 0 || Number(c?.offset ?? -1) >= Number(p.high);
      });
    };
    const committed = await waitUntil(
      async () => ((await committedToEnd()) ? true : undefined),
      run.stepTimeoutMs,
      'the batch committed',
    ).then(
      () => true,
      () => false,
    );

    const out: Observation[] = [];
    for (const [scenario, ctx] of [
      [batchCases[0] as Scenario, order],
      [batchCases[1] as Scenario, stray],
    ] as const) {
      const o = await observe(scenario, ctx);
      const bulkLines = seen
        .filter((m) => m.topic === bulkTopic)
        .flatMap((m) => {
          for (const [label, entry] of ctx.ids)
            if (entry.id === m.id) return [`${label} ${m.action} on the bulk-processing topic`];
          return [];
        });
      out.push({
        ...o,
        notifications: [
          ...o.notifications,
          ...bulkLines,
          `batch topic ${committed ? 'committed to its end' : 'not committed to its end'}`,
        ],
      });
    }
    return out;
  } finally {
    await reader.disconnect();
    await producer.disconnect();
    await kafkaAdmin.disconnect();
  }
}

async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
