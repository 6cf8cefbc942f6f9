'use strict';
// Creates the Kafka topics central-ledger's handlers consume and produce, when missing, with the Kafka client
// central-ledger itself uses (its node-rdkafka): node topics.cjs <central-ledger package dir> <brokers> name:partitions...
// A consumer subscribing to a topic that does not exist yet misses what is produced before the topic appears.
const { createRequire } = require('node:module');
const { join } = require('node:path');

const [packageDir, brokers, ...entries] = process.argv.slice(2);
const Kafka = createRequire(join(packageDir, 'package.json'))('node-rdkafka');
const ALREADY_EXISTS = 36;

const admin = Kafka.AdminClient.create({
  'metadata.broker.list': brokers,
  'client.id': 'mojafast-central-ledger-topics',
});
const created = [];
Promise.all(
  entries.map((entry) => {
    const [topic, partitions] = entry.split(':');
    return new Promise((resolve, reject) =>
      admin.createTopic({ topic, num_partitions: Number(partitions), replication_factor: 1 }, 15_000, (error) => {
        if (!error) created.push(topic);
        if (!error || error.code === ALREADY_EXISTS) resolve();
        else reject(new Error(`creating topic ${topic} on ${brokers}: ${error.message}`));
      }),
    );
  }),
)
  .then(() => {
    if (created.length > 0) console.log(`created ${created.join(' ')}`);
  })
  .catch((error) => {
    console.error(error.message);
    process.exitCode = 1;
  })
  .finally(() => admin.disconnect());
