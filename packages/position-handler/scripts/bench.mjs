// Provisional throughput measurement for issue #5, until `bench:position` (packages/bench) lands.
// For each batch size and action: a fresh database (our migrations) and topics, DFSPs provisioned, transfers
// in the state the action needs, the messages produced up front; then the handler starts in this process and
// the rate is taken between its first and its last handled message (group join excluded).
//
//   pnpm build && node packages/position-handler/scripts/bench.mjs
//   BENCH_BATCH_SIZES=100,1000 BENCH_ACTIONS=prepare BENCH_MESSAGES=20000 BENCH_PARTITIONS=4 node ...
import { createDatabase, createTopic, loadInfraSettings, testKafka } from '@mojafast/testkit';
import {
  createKnex,
  generatePositionMessages,
  generateTransfers,
  insertTransfers,
  loadConfig,
  migrateLatest,
  provisionLedger,
  startPositionService,
} from '../dist/index.js';

const env = process.env;
const batchSizes = (env.BENCH_BATCH_SIZES ?? '1,100,1000').split(',').map(Number);
const actions = (env.BENCH_ACTIONS ?? 'prepare,commit').split(',');
const partitions = Number(env.BENCH_PARTITIONS ?? 4);
const dfspCount = Number(env.BENCH_DFSPS ?? 16);
const messagesFor = (batchSize) =>
  Number(env.BENCH_MESSAGES ?? (batchSize === 1 ? 2_000 : batchSize < 500 ? 10_000 : 30_000));

const quiet = { error: (m, f) => console.error(m, f ?? ''), warn: () => {}, info: () => {}, debug: () => {} };

async function run(action, batchSize) {
  const count = messagesFor(batchSize);
  const db = await createDatabase({ prefix: 'bench_position' });
  const input = await createTopic({ prefix: 'bench_position_in', partitions });
  const output = await createTopic({ prefix: 'bench_position_out' });
  const knex = createKnex(db.connection);
  try {
    await migrateLatest(knex);
    const dfsps = Array.from({ length: dfspCount }, (_, i) => `benchfsp${i}`);
    const ledger = await provisionLedger(knex, {
      currencies: ['USD'],
      dfsps: dfsps.map((name) => ({ name, netDebitCap: '100000000', liquidity: '100000000' })),
    });
    const transfers = generateTransfers({ transfers: count, dfsps, currencies: ['USD'] });
    await insertTransfers(
      knex,
      transfers.map((t) => ({ ...t, state: action === 'prepare' ? 'RECEIVED_PREPARE' : 'RECEIVED_FULFIL' })),
      ledger.accounts,
    );
    const messages = generatePositionMessages({
      transfers,
      action,
      accountOf: (dfsp, currency) => ledger.accounts.get(`${dfsp}:${currency}`).position,
    });
    const producer = testKafka().producer();
    await producer.connect();
    let chunk = [];
    let bytes = 0;
    for (const m of messages) {
      chunk.push(m);
      bytes += m.value.length;
      if (bytes > 700_000) {
        await producer.send({ topic: input.name, acks: -1, messages: chunk });
        chunk = [];
        bytes = 0;
      }
    }
    if (chunk.length > 0) await producer.send({ topic: input.name, acks: -1, messages: chunk });
    await producer.disconnect();

    const settings = loadInfraSettings();
    const config = loadConfig(env, {
      kafkaBrokers: settings.kafka.brokers,
      positionTopics: [input.name],
      notificationTopic: output.name,
      consumerGroup: `${input.name}-group`,
      dbHost: db.connection.host,
      dbPort: db.connection.port,
      dbUser: db.connection.user,
      dbPassword: db.connection.password,
      dbName: db.connection.database,
      httpPort: 0,
      batchSize,
      partitionsConsumedConcurrently: partitions,
    });
    const service = await startPositionService(config, { logger: quiet });
    const handled = async () => {
      const metric = await service.registry.getSingleMetric('position_messages_total').get();
      return metric.values.reduce((sum, v) => sum + v.value, 0);
    };
    let first;
    let firstCount = 0;
    const cpuStart = process.cpuUsage();
    const deadline = Date.now() + 600_000;
    for (;;) {
      const n = await handled();
      if (first === undefined && n > 0) {
        first = performance.now();
        firstCount = n;
      }
      if (n >= count) break;
      if (Date.now() > deadline) throw new Error(`only ${n} of ${count} handled`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - first) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const stages = await service.registry.getSingleMetric('position_stage_seconds').get();
    await service.stop();
    const perStage = {};
    for (const v of stages.values) {
      if (v.metricName?.endsWith('_sum')) perStage[v.labels.stage] = Number(v.value.toFixed(3));
    }
    return {
      action,
      batchSize,
      messages: count,
      seconds: Number(seconds.toFixed(2)),
      msgsPerSecond: Math.round((count - firstCount) / seconds),
      handlerCpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / seconds) * 100),
      stageSecondsTotal: perStage,
    };
  } finally {
    await knex.destroy();
    await input.drop();
    await output.drop();
    await db.drop();
  }
}

const results = [];
for (const batchSize of batchSizes) {
  for (const action of actions) {
    const result = await run(action, batchSize);
    results.push(result);
    console.log(JSON.stringify(result));
  }
}
console.log('\n| action | batch size | messages | msgs/s | handler CPU % |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.action} | ${r.batchSize} | ${r.messages} | ${r.msgsPerSecond} | ${r.handlerCpuPercent} |`);
}
