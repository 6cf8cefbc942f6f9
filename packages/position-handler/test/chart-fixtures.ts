import { readFileSync } from 'node:fs';

// The ConfigMap and the container environment of Mojaloop's chart for the batch position handler, rendered
// with its default values (fixtures/charts/README.md says how).
const charts = new URL('./fixtures/charts/', import.meta.url);
export const renderedFile = new URL('position-batch-chart.default.json', charts).pathname;
export const renderedKnexfile = new URL('position-batch-chart.knexfile.js', charts).pathname;

/**
 * What templates/deployment.yaml runs and sets on the container, as helm renders it (CLEDG_DATABASE__PASSWORD
 * empty by default); deploy-check's charts-render test holds the file to the rendering.
 */
const container = JSON.parse(readFileSync(new URL('position-batch-chart.env.json', charts), 'utf8')) as {
  command: string[];
  env: Record<string, string>;
};
export const chartEnv = container.env;
/** The container's command after `node src/handlers/index.js`. */
export const chartArgs = container.command.slice(2);

const batch = 'KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config';
const notification = 'KAFKA.PRODUCER.NOTIFICATION.EVENT.config';
const follow = 'KAFKA.PRODUCER.TRANSFER.POSITION.config';
const producerKeys = (section: string) => [
  `${section}.options.messageCharset`,
  `${section}.rdkafkaConf.client.id`,
  `${section}.rdkafkaConf.event_cb`,
  `${section}.rdkafkaConf.dr_cb`,
  `${section}.rdkafkaConf.socket.keepalive.enable`,
  `${section}.rdkafkaConf.queue.buffering.max.messages`,
];
/** What the start-up warning names for the chart's file and environment: every key the handler cannot honour. */
export const expectedWarning = [
  'DATABASE.POOL_MIN_SIZE',
  'DATABASE.ACQUIRE_TIMEOUT_MILLIS',
  'DATABASE.CREATE_TIMEOUT_MILLIS',
  'DATABASE.DESTROY_TIMEOUT_MILLIS',
  'DATABASE.IDLE_TIMEOUT_MILLIS',
  'DATABASE.REAP_INTERVAL_MILLIS',
  'DATABASE.CREATE_RETRY_INTERVAL_MILLIS',
  'DATABASE.DEBUG',
  'HUB_PARTICIPANT.ID',
  'HUB_PARTICIPANT.ACCOUNTS',
  'CACHE.MAX_BYTE_SIZE',
  'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.REGEX',
  `${batch}.options.mode`,
  `${batch}.options.pollFrequency`,
  `${batch}.options.recursiveTimeout`,
  `${batch}.options.messageCharset`,
  `${batch}.options.messageAsJSON`,
  `${batch}.options.sync`,
  `${batch}.options.consumeTimeout`,
  `${batch}.rdkafkaConf.socket.keepalive.enable`,
  `${batch}.rdkafkaConf.allow.auto.create.topics`,
  `${batch}.rdkafkaConf.partition.assignment.strategy`,
  ...producerKeys(follow),
  `${follow}.topicConf.request.required.acks`,
  `${follow}.topicConf.partitioner`,
  ...producerKeys(notification),
  `${notification}.topicConf.partitioner`,
  'CSL_LOG_TRANSPORT',
  'EVENT_SDK_ASYNC_OVERRIDE_EVENTS',
  'EVENT_SDK_LOG_FILTER',
  'EVENT_SDK_LOG_METADATA_ONLY',
  'EVENT_SDK_SERVER_HOST',
  'EVENT_SDK_SERVER_PORT',
  'EVENT_SDK_SIDECAR_DISABLED',
  'EVENT_SDK_TRACEID_PER_VENDOR',
  'EVENT_SDK_TRACESTATE_HEADER_ENABLED',
  'EVENT_SDK_VENDOR_PREFIX',
];
