import { Admin } from '@platformatic/kafka';
import { platformaticConnection } from './platformatic-connection.js';
import { type KafkaSecurity, PLAINTEXT } from './types.js';

/**
 * The topics among `topics` the cluster does not have. Asked once at start, so a missing topic is named
 * with the command that creates it, not reported as the client's "This server does not host this
 * topic-partition": the handler never creates topics, unlike the original's consumers
 * (`allow.auto.create.topics`), because a topic's partition count is a deployment decision. On
 * @platformatic/kafka's admin client whichever client carries the messages, so kafkajs is loaded only when
 * KAFKA_CLIENT=kafkajs asks for it.
 */
export async function missingTopics(
  brokers: readonly string[],
  topics: readonly string[],
  security: KafkaSecurity = PLAINTEXT,
): Promise<string[]> {
  const admin = new Admin({
    clientId: 'mojafast-position-topic-check',
    bootstrapBrokers: [...brokers],
    retries: 5,
    retryDelay: 300,
    ...platformaticConnection(security),
  });
  try {
    const existing = new Set(await admin.listTopics());
    return [...new Set(topics)].filter((topic) => !existing.has(topic));
  } finally {
    await admin.close();
  }
}

/** One line: the missing topics, and how to create them. */
export function missingTopicsMessage(brokers: readonly string[], missing: readonly string[]): string {
  const create = missing
    .map((topic) => `kafka-topics.sh --bootstrap-server ${brokers[0]} --create --topic ${topic} --partitions 4`)
    .join('; ');
  return `Kafka topic${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing on ${brokers.join(',')}: create ${missing.length > 1 ? 'them' : 'it'} (locally \`infra/svc start\` creates central-ledger's topics; elsewhere: ${create})`;
}
