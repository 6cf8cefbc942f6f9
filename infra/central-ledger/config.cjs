'use strict';
// Writes the override central-ledger reads on top of its own config/default.json (rc: CLEDG_config=<file>),
// so its files stay as npm delivered them. Run by infra/central-ledger/central-ledger.sh with the Node that
// runs central-ledger: node config.cjs <central-ledger package dir> <out file>. Settings from the environment
// (infra/services.env):
//   every Kafka client's metadata.broker.list   -> KAFKA_HOST:KAFKA_PORT
//   DATABASE                                    -> MYSQL_HOST:MYSQL_PORT, MYSQL_USER, CENTRAL_LEDGER_DB
//   every POSITION action of the prepare/fulfil/timeout handlers -> CENTRAL_LEDGER_POSITION_TOPIC (the batch
//     topic, as the harness's central-handlers configs route them), so either position handler serves them
//   topic names and consumer groups              -> prefixed with CENTRAL_LEDGER_TOPIC_PREFIX (default none)
//   HANDLERS.DISABLED                            -> true: the API process serves the API only; the handlers run
//     in their own processes, as a deployment runs them
//   HANDLERS.TIMEOUT.TIMEXP                      -> CENTRAL_LEDGER_TIMEOUT_CRON (how often the timeout handler
//     looks for expired transfers; its default is every 15 s)
//   PROXY_CACHE.enabled                          -> false: its default wants a Redis Cluster, and inter-scheme
//     proxies are not part of a local switch
//   KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options.batchSize -> CENTRAL_LEDGER_POSITION_BATCH_SIZE when set
//     (a number: central-services-stream refuses the string an rc CLEDG_ variable would give; bench:position
//     --original runs both position handlers at one batch size)
const { readFileSync, writeFileSync, renameSync } = require('node:fs');
const { join } = require('node:path');

const [packageDir, outFile] = process.argv.slice(2);
if (!packageDir || !outFile) throw new Error('usage: node config.cjs <central-ledger package dir> <out file>');
const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set (infra/services.env)`);
  return value;
};
// A wrong setting ends the run with its message alone: infra/svc prints it as its one error line.
process.on('uncaughtException', (error) => {
  console.error(error.message);
  process.exit(1);
});
const defaults = JSON.parse(readFileSync(join(packageDir, 'config/default.json'), 'utf8'));
const brokers = `${env('KAFKA_HOST')}:${env('KAFKA_PORT')}`;
const prefix = process.env.CENTRAL_LEDGER_TOPIC_PREFIX ?? '';
const positionTopic = prefix + env('CENTRAL_LEDGER_POSITION_TOPIC');

// The Kafka clients' settings, reduced to the keys we change; rc merges the rest from default.json.
function kafkaClients(node) {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  if (node.rdkafkaConf) {
    const rdkafkaConf = { 'metadata.broker.list': brokers };
    if (node.rdkafkaConf['group.id']) rdkafkaConf['group.id'] = prefix + node.rdkafkaConf['group.id'];
    return { rdkafkaConf };
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    const changed = kafkaClients(value);
    if (changed !== undefined) out[key] = changed;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const templates = defaults.KAFKA.TOPIC_TEMPLATES;
const override = {
  DATABASE: {
    HOST: env('MYSQL_HOST'),
    PORT: Number(env('MYSQL_PORT')),
    USER: env('MYSQL_USER'),
    PASSWORD: env('MYSQL_PASSWORD'),
    SCHEMA: env('CENTRAL_LEDGER_DB'),
  },
  MIGRATIONS: { DISABLED: false, RUN_DATA_MIGRATIONS: true },
  HANDLERS: { DISABLED: true, TIMEOUT: { TIMEXP: env('CENTRAL_LEDGER_TIMEOUT_CRON') } },
  PROXY_CACHE: { enabled: false },
  MONGODB: { DISABLED: true },
  KAFKA: {
    ...kafkaClients({ CONSUMER: defaults.KAFKA.CONSUMER, PRODUCER: defaults.KAFKA.PRODUCER }),
    EVENT_TYPE_ACTION_TOPIC_MAP: {
      POSITION: Object.fromEntries(
        Object.keys(defaults.KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION)
          .filter((action) => !action.startsWith('BULK_'))
          .map((action) => [action, positionTopic]),
      ),
    },
    TOPIC_TEMPLATES: {
      PARTICIPANT_TOPIC_TEMPLATE: { TEMPLATE: prefix + templates.PARTICIPANT_TOPIC_TEMPLATE.TEMPLATE },
      GENERAL_TOPIC_TEMPLATE: { TEMPLATE: prefix + templates.GENERAL_TOPIC_TEMPLATE.TEMPLATE },
    },
  },
};
const batchSize = process.env.CENTRAL_LEDGER_POSITION_BATCH_SIZE;
if (batchSize) {
  const n = Number(batchSize);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`CENTRAL_LEDGER_POSITION_BATCH_SIZE must be a whole number of messages, got "${batchSize}"`);
  }
  override.KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options = { batchSize: n };
}
writeFileSync(`${outFile}.tmp`, `${JSON.stringify(override, null, 2)}\n`);
renameSync(`${outFile}.tmp`, outFile);
