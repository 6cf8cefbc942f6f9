import {
  asText,
  keyName,
  leaves,
  metricLabelsText,
  type OriginalSource,
  pathKey,
  type Tree,
  valueAt,
} from '@mojafast/service-kit';
import { ConfigError } from './config-error.js';

/** The handlers of central-ledger's command line this process serves (src/handlers/index.js). */
export type PositionHandlerKind = 'position' | 'positionbatch';

/** One of our settings as the original's file gives it: the field and its text for our parser. */
export interface MappedValue {
  readonly field: string;
  readonly text: string;
  /** The original's key (or CLEDG_ variable) named when the value is bad. */
  readonly key: string;
}

export interface CentralLedgerMapping {
  readonly values: readonly MappedValue[];
  /** Keys the original's position handler reads that we cannot honour: named once at start as a warning. */
  readonly notHonoured: readonly string[];
}

/** Where central-ledger's image has its config file (its Dockerfile: WORKDIR /opt/app, COPY config). */
export const CENTRAL_LEDGER_CONFIG_FILE = '/opt/app/config/default.json';
/** central-ledger's rc app name: `rc('CLEDG', …)` in src/lib/config.js, so overrides are CLEDG_A__B. */
export const CENTRAL_LEDGER_RC_APP = 'CLEDG';

const rdkafka = ['config', 'rdkafkaConf'];
const topicConf = ['config', 'topicConf'];
const options = ['config', 'options'];

/**
 * Keys of central-ledger's config that its position handlers never read (the API, the other handlers,
 * migrations and seeds): they configure other processes of a deployment, so they are not reported.
 */
const otherServiceKeys: readonly string[][] = [
  ['HOSTNAME'],
  ['MAX_FULFIL_TIMEOUT_DURATION_SECONDS'],
  ['MIGRATIONS'], // the handler command starts with runMigrations: false (src/handlers/index.js)
  ['MONGODB'],
  ['HANDLERS'],
  ['PARTICIPANT_INITIAL_POSITION'],
  ['HUB_PARTICIPANT', 'ID'],
  ['HUB_PARTICIPANT', 'ACCOUNTS'],
  ['INTERNAL_TRANSFER_VALIDITY_SECONDS'],
  ['ENABLE_ON_US_TRANSFERS'],
  ['PAYEE_PARTICIPANT_CURRENCY_VALIDATION_ENABLED'],
  ['PROXY_CACHE'],
  ['API_DOC_ENDPOINTS_ENABLED'],
  ['EXPIRES_TIMEOUT'],
  ['KAFKA', 'TOPIC_TEMPLATES', 'PARTICIPANT_TOPIC_TEMPLATE'],
  ['KAFKA', 'TOPIC_TEMPLATES', 'GENERAL_TOPIC_TEMPLATE', 'REGEX'],
];

/**
 * Keys no process of central-ledger 19 reads (its src/ names them nowhere): the forensic-logging sidecar and the
 * e-mail settings of older versions, which Mojaloop's charts still render. Nothing to honour, so not reported.
 */
const unreadKeys: readonly string[][] = [['SIDECAR'], ['EMAIL_USER'], ['EMAIL_PASSWORD'], ['EMAIL_SMTP']];

/**
 * central-ledger's config/default.json INSTRUMENTATION.METRICS.labels.fspId: what its one-at-a-time handler
 * labels transfer_position with when a deployment leaves the key as the chart's file has it.
 */
export const CENTRAL_LEDGER_FSP_ID_LABEL = '*';
const fspIdLabelPath = ['INSTRUMENTATION', 'METRICS', 'labels', 'fspId'];

/**
 * librdkafka's TLS and SASL keys we honour, each with our setting, its value as our parser reads it, and the
 * value librdkafka takes when the key is unset (what a block without it means, so two blocks are compared as
 * librdkafka would run them). Its enum values are read in any case, as librdkafka reads them.
 */
interface SecurityKey {
  readonly key: string;
  readonly field: string;
  readonly convert: (value: unknown, key: string) => string;
  readonly unset: string;
}

const lowerText = (value: unknown) => asText(value).trim().toLowerCase();
const trueFalse = (value: unknown, key: string) => {
  const text = lowerText(value);
  if (text !== 'true' && text !== 'false') throw new ConfigError(key, `must be true or false, got "${asText(value)}"`);
  return text;
};
const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

const kafkaSecurityKeys: readonly SecurityKey[] = [
  {
    key: 'security.protocol',
    field: 'kafkaSecurityProtocol',
    convert: (value, key) => {
      const text = lowerText(value);
      if (!['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'].includes(text)) {
        throw new ConfigError(key, `must be plaintext, ssl, sasl_plaintext or sasl_ssl, got "${asText(value)}"`);
      }
      return text;
    },
    unset: 'plaintext',
  },
  { key: 'ssl.ca.location', field: 'kafkaSslCaFile', convert: asText, unset: '' },
  { key: 'ssl.ca.pem', field: 'kafkaSslCaPem', convert: asText, unset: '' },
  { key: 'ssl.certificate.location', field: 'kafkaSslCertFile', convert: asText, unset: '' },
  { key: 'ssl.certificate.pem', field: 'kafkaSslCertPem', convert: asText, unset: '' },
  { key: 'ssl.key.location', field: 'kafkaSslKeyFile', convert: asText, unset: '' },
  { key: 'ssl.key.pem', field: 'kafkaSslKeyPem', convert: asText, unset: '' },
  { key: 'ssl.key.password', field: 'kafkaSslKeyPassword', convert: asText, unset: '' },
  { key: 'enable.ssl.certificate.verification', field: 'kafkaSslVerify', convert: trueFalse, unset: 'true' },
  {
    key: 'ssl.endpoint.identification.algorithm',
    field: 'kafkaSslHostnameCheck',
    convert: (value, key) => {
      const text = lowerText(value);
      if (text === 'https') return 'true';
      if (text === 'none') return 'false';
      throw new ConfigError(key, `must be https or none, got "${asText(value)}"`);
    },
    // librdkafka's default since 2.0.0 (`none` before): the 2.x behaviour is the one followed.
    unset: 'true',
  },
  {
    key: 'sasl.mechanisms',
    field: 'kafkaSaslMechanism',
    convert: (value, key) => {
      const text = asText(value).trim().toUpperCase();
      if (!SASL_MECHANISMS.includes(text)) {
        throw new ConfigError(
          key,
          `must be ${SASL_MECHANISMS.join(', ')} (GSSAPI and OAUTHBEARER are not offered by this handler's Kafka clients), got "${asText(value)}"`,
        );
      }
      return text;
    },
    unset: '',
  },
  { key: 'sasl.username', field: 'kafkaSaslUsername', convert: asText, unset: '' },
  { key: 'sasl.password', field: 'kafkaSaslPassword', convert: asText, unset: '' },
];
/** librdkafka's alias of `sasl.mechanisms`. */
const SASL_MECHANISM_ALIAS = 'sasl.mechanism';

/** mysql2's named CA bundles (its lib/constants/ssl_profiles.js), which `ssl` may name instead of an object. */
const MYSQL2_SSL_PROFILES = ['Amazon RDS'];

const startsWith = (path: readonly string[], prefix: readonly string[]) =>
  prefix.length <= path.length && prefix.every((part, i) => path[i] === part);

/** central-services-shared Kafka.transformGeneralTopicName: the template with functionality and action. */
function generalTopic(tree: Tree, functionality: string, action: string): string {
  const template = valueAt(tree, ['KAFKA', 'TOPIC_TEMPLATES', 'GENERAL_TOPIC_TEMPLATE', 'TEMPLATE']);
  const text = typeof template === 'string' && template !== '' ? template : 'topic-{{functionality}}-{{action}}';
  return text.replaceAll('{{functionality}}', functionality).replaceAll('{{action}}', action);
}

/**
 * Maps central-ledger's configuration onto ours, for the handlers the command line names (none: the batch
 * handler, our default). Which topic and consumer settings each handler takes follows the original:
 * src/handlers/positions/handlerBatch.js (KAFKA.CONSUMER.TRANSFER.POSITION_BATCH, topic
 * EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE or the general template's topic-transfer-position) and
 * src/handlers/positions/handler.js (KAFKA.CONSUMER.TRANSFER.POSITION, the template's topic).
 */
export function mapCentralLedger(
  source: OriginalSource,
  handlers: readonly PositionHandlerKind[],
): CentralLedgerMapping {
  // src/handlers/positions/handler.js labels its transfer_position {success, fspId, action}, fspId being
  // Config.INSTRUMENTATION_METRICS_LABELS.fspId; handlerBatch.js's has no fspId. With both handlers the
  // one-at-a-time label set is kept (one label set per name: docs/differences.md, `transfer_position`'s labels).
  const oneAtATime = handlers.includes('position');
  const tree = source.tree;
  if (tree === undefined) return { values: oneAtATime ? [fspIdLabel(source)] : [], notHonoured: [] };
  const m = createMapper(source, tree);
  const batch = handlers.length === 0 || handlers.includes('positionbatch');
  const section = ['KAFKA', 'CONSUMER', 'TRANSFER', batch ? 'POSITION_BATCH' : 'POSITION'];
  mapDatabase(m);
  mapErrorHandling(m);
  mapCache(m);
  mapConsumer(m, section);
  // Topics are derived only when the KAFKA tree is given (a file, or CLEDG_KAFKA__… overrides alone).
  if (valueAt(tree, ['KAFKA']) !== undefined) mapTopics(m, batch, handlers.includes('position'));
  mapProducers(m, section);
  mapInstrumentation(m);
  if (oneAtATime) m.values.push(fspIdLabel(source));
  return { values: m.values, notHonoured: notHonoured(m, section) };
}

/** The fspId label the one-at-a-time handler puts on transfer_position: the key's, else the original's default. */
function fspIdLabel(source: OriginalSource): MappedValue {
  const { tree } = source;
  const value = tree === undefined ? undefined : valueAt(tree, fspIdLabelPath);
  const key = tree === undefined ? fspIdLabelPath.join('.') : keyName(source, fspIdLabelPath);
  if (value === undefined) return { field: 'metricsFspId', text: CENTRAL_LEDGER_FSP_ID_LABEL, key };
  if (typeof value === 'object' && value !== null) {
    throw new ConfigError(key, `must be a label value (text), got ${JSON.stringify(value)}`);
  }
  return { field: 'metricsFspId', text: asText(value), key };
}

/** The mapping under way: the values found so far, and every key read (the rest may be named as not honoured). */
interface Mapper {
  readonly source: OriginalSource;
  readonly tree: Tree;
  readonly values: MappedValue[];
  readonly used: Set<string>;
  /** Marks a key as read. */
  seen(path: readonly string[]): void;
  /** The key's value, converted, as our setting `field` (nothing when the key is unset). */
  take(field: string, path: readonly string[], convert?: (value: unknown, key: string) => string): void;
  /** A key read and checked, with no setting of ours behind it (its only value is the one we do). */
  accept(path: readonly string[], ok: (value: unknown) => boolean, detail: string): void;
}

function createMapper(source: OriginalSource, tree: Tree): Mapper {
  const values: MappedValue[] = [];
  const used = new Set<string>();
  const seen = (path: readonly string[]) => {
    used.add(pathKey(path));
  };
  return {
    source,
    tree,
    values,
    used,
    seen,
    take(field, path, convert = asText) {
      const value = valueAt(tree, [...path]);
      if (value === undefined) return;
      seen(path);
      const key = keyName(source, [...path]);
      values.push({ field, text: convert(value, key), key });
    },
    accept(path, ok, detail) {
      const value = valueAt(tree, [...path]);
      if (value === undefined) return;
      seen(path);
      if (!ok(value)) throw new ConfigError(keyName(source, [...path]), `${detail}, got "${asText(value)}"`);
    },
  };
}

/** The HTTP port, the database and what the ledger's amounts and hub are. */
function mapDatabase(m: Mapper) {
  m.take('httpPort', ['PORT']);
  m.take('dbHost', ['DATABASE', 'HOST'], (value) => asText(value).replace(/\/$/, ''));
  m.take('dbPort', ['DATABASE', 'PORT']);
  m.take('dbUser', ['DATABASE', 'USER']);
  m.take('dbPassword', ['DATABASE', 'PASSWORD']);
  m.take('dbName', ['DATABASE', 'SCHEMA']);
  m.take('dbPoolMax', ['DATABASE', 'POOL_MAX_SIZE']);
  mapConnectionOptions(m);
  // knex's client name: central-ledger 19.14.0's own file says mysql2, 19.5.5's and older charts' mysql; both are MySQL.
  m.accept(
    ['DATABASE', 'DIALECT'],
    (v) => v === 'mysql' || v === 'mysql2',
    'must be mysql or mysql2 (the handler speaks MySQL/MariaDB only)',
  );
  // Positions are exact DECIMAL(18,4) ten-thousandths (ledger/amount.ts), the columns' own type.
  m.accept(['AMOUNT', 'PRECISION'], (v) => asText(v) === '18', 'must be 18 (positions are DECIMAL(18,4))');
  m.accept(['AMOUNT', 'SCALE'], (v) => asText(v) === '4', 'must be 4 (positions are DECIMAL(18,4))');
  m.take('hubName', ['HUB_PARTICIPANT', 'NAME']);
}

/**
 * DATABASE.ADDITIONAL_CONNECTION_OPTIONS: `ssl` (mysql2's object, or one of its profiles' names) and
 * `connectTimeout`. Its other keys (result types, charset, time zone, flags…) would change what the store
 * relies on or have no use here: they stay unmarked, so the warning names them.
 */
function mapConnectionOptions(m: Mapper) {
  const { source, tree, values } = m;
  const base = ['DATABASE', 'ADDITIONAL_CONNECTION_OPTIONS'];
  m.take('dbConnectTimeoutMs', [...base, 'connectTimeout']);
  const sslPath = [...base, 'ssl'];
  const ssl = valueAt(tree, sslPath);
  if (ssl === undefined) return;
  const key = keyName(source, sslPath);
  m.seen(sslPath);
  // rc gives a CLEDG_ variable as text: "false" is the variable's way to say false.
  if (ssl === false || ssl === null || ssl === 'false' || ssl === '') {
    values.push({ field: 'dbSsl', text: 'off', key });
    return;
  }
  if (typeof ssl === 'string') {
    if (!MYSQL2_SSL_PROFILES.includes(ssl)) {
      throw new ConfigError(
        key,
        `must be an object (rejectUnauthorized, ca, cert, key, passphrase, verifyIdentity) or the name of a mysql2 profile (${MYSQL2_SSL_PROFILES.join(', ')}), got "${ssl}"`,
      );
    }
    values.push({ field: 'dbSsl', text: 'verify', key }, { field: 'dbSslProfile', text: ssl, key });
    return;
  }
  if (typeof ssl !== 'object' || Array.isArray(ssl)) {
    // mysql2 refuses `true` too ("SSL profile must be an object").
    throw new ConfigError(key, `must be an object or the name of a mysql2 profile, got ${JSON.stringify(ssl)}`);
  }
  // mysql2: any value but false verifies the certificate; verifyIdentity true checks the host name too.
  const at = (name: string) => valueAt(tree, [...sslPath, name]);
  const flag = (name: string) => {
    const value = at(name);
    if (value === undefined) return undefined;
    m.seen([...sslPath, name]);
    return trueFalse(value, keyName(source, [...sslPath, name])) === 'true';
  };
  const reject = flag('rejectUnauthorized');
  const identity = flag('verifyIdentity');
  const mode = reject === false ? 'on' : identity === true ? 'verify-identity' : 'verify';
  values.push({ field: 'dbSsl', text: mode, key });
  for (const [name, field] of [
    ['ca', 'dbSslCaPem'],
    ['cert', 'dbSslCertPem'],
    ['key', 'dbSslKeyPem'],
    ['passphrase', 'dbSslKeyPassword'],
  ] as const) {
    const value = at(name);
    if (value === undefined) continue;
    const path = [...sslPath, name];
    m.seen(path);
    // mysql2 takes a list of PEM texts as well as one: one text holding them all is the same bundle.
    const text = Array.isArray(value) ? value.map(String).join('\n') : asText(value);
    values.push({ field, text, key: keyName(source, path) });
  }
}

/**
 * ERROR_HANDLING is what central-ledger hands its error library's toApiErrorObject for every error notification:
 * a key a deployment's file leaves out takes that function's own default (includeCauseExtension false,
 * truncateExtensions true), not the repository file's, so it does here too. Without a file, ours stand.
 */
function mapErrorHandling(m: Mapper) {
  const { source, tree, values } = m;
  const errorHandling = valueAt(tree, ['ERROR_HANDLING']);
  if (errorHandling !== undefined) {
    m.seen(['ERROR_HANDLING']);
    // null would make every error notification of the original throw (toApiErrorObject destructures it).
    if (typeof errorHandling !== 'object' || errorHandling === null || Array.isArray(errorHandling)) {
      throw new ConfigError(
        keyName(source, ['ERROR_HANDLING']),
        `must be an object, got ${JSON.stringify(errorHandling)}`,
      );
    }
  }
  for (const [key, field, libraryDefault] of [
    ['includeCauseExtension', 'errorCauseExtension', 'false'],
    ['truncateExtensions', 'errorTruncateExtensions', 'true'],
  ] as const) {
    const path = ['ERROR_HANDLING', key];
    const value = valueAt(tree, path);
    if (value === undefined) {
      if (source.file !== undefined) values.push({ field, text: libraryDefault, key: path.join('.') });
      continue;
    }
    m.seen(path);
    // The library tests `=== true` and truthiness: anything but a boolean would mean something else there.
    const text = asText(value);
    if (text !== 'true' && text !== 'false') {
      throw new ConfigError(keyName(source, path), `must be true or false, got "${text}"`);
    }
    values.push({ field, text, key: keyName(source, path) });
  }
}

/** The participant cache (CACHE.CACHE_ENABLED, EXPIRES_IN_MS) is what our reference-data TTL replaces. */
function mapCache(m: Mapper) {
  const enabledPath = ['CACHE', 'CACHE_ENABLED'];
  const cacheEnabled = valueAt(m.tree, enabledPath);
  if (cacheEnabled === undefined) return;
  m.seen(enabledPath);
  const enabled = asText(cacheEnabled);
  if (enabled !== 'true' && enabled !== 'false') {
    throw new ConfigError(keyName(m.source, enabledPath), `must be true or false, got "${enabled}"`);
  }
  if (enabled === 'false') {
    m.seen(['CACHE', 'EXPIRES_IN_MS']);
    m.values.push({ field: 'referenceTtlMs', text: '0', key: keyName(m.source, enabledPath) });
  } else m.take('referenceTtlMs', ['CACHE', 'EXPIRES_IN_MS']);
}

/** The handler's consumer section (KAFKA.CONSUMER.TRANSFER.POSITION_BATCH or .POSITION). */
function mapConsumer(m: Mapper, section: readonly string[]) {
  m.take('kafkaBrokers', [...section, ...rdkafka, 'metadata.broker.list']);
  m.take('consumerGroup', [...section, ...rdkafka, 'group.id']);
  m.take('kafkaClientId', [...section, ...rdkafka, 'client.id']);
  // We commit offsets after a batch's notifications are acknowledged, as the original does with false.
  m.accept(
    [...section, ...rdkafka, 'enable.auto.commit'],
    (v) => asText(v) === 'false',
    'must be false (offsets are committed after the batch is applied and notified)',
  );
  m.take('fromBeginning', [...section, ...topicConf, 'auto.offset.reset'], (value, key) => {
    const text = asText(value);
    if (text === 'earliest' || text === 'smallest' || text === 'beginning') return 'true';
    if (text === 'latest' || text === 'largest' || text === 'end') return 'false';
    throw new ConfigError(key, `must be earliest or latest, got "${text}"`);
  });
  m.take('batchSize', [...section, ...options, 'batchSize']);
}

/** The topics the handlers consume and produce to, from the topic map and the general template. */
function mapTopics(m: Mapper, batch: boolean, oneAtATime: boolean) {
  const { tree, values } = m;
  const positionMap = ['KAFKA', 'EVENT_TYPE_ACTION_TOPIC_MAP', 'POSITION'];
  const topics: string[] = [];
  if (batch) {
    const prepare = valueAt(tree, [...positionMap, 'PREPARE']);
    m.seen([...positionMap, 'PREPARE']);
    topics.push(typeof prepare === 'string' && prepare !== '' ? prepare : generalTopic(tree, 'transfer', 'position'));
  }
  if (oneAtATime) topics.push(generalTopic(tree, 'transfer', 'position'));
  m.seen(['KAFKA', 'TOPIC_TEMPLATES', 'GENERAL_TOPIC_TEMPLATE', 'TEMPLATE']);
  values.push({
    field: 'positionTopics',
    text: [...new Set(topics)].join(','),
    key: 'KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP',
  });
  values.push({
    field: 'notificationTopic',
    text: generalTopic(tree, 'notification', 'event'),
    key: 'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.TEMPLATE',
  });
  // The one-at-a-time handler's Kafka.proceed sends the bulk actions' results as functionality bulk-processing,
  // which central-services-shared's TopicMap names bulk/processing: the template's topic-bulk-processing.
  values.push({
    field: 'bulkProcessingTopic',
    text: generalTopic(tree, 'bulk', 'processing'),
    key: 'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.TEMPLATE',
  });
  const commit = valueAt(tree, [...positionMap, 'COMMIT']);
  m.seen([...positionMap, 'COMMIT']);
  values.push({
    field: 'positionCommitTopic',
    text: typeof commit === 'string' && commit !== '' ? commit : generalTopic(tree, 'transfer', 'position'),
    key: keyName(m.source, [...positionMap, 'COMMIT']),
  });
}

/**
 * The notification producer (Kafka.produceGeneralMessage, NOTIFICATION EVENT) and the follow-up producer
 * (TRANSFER POSITION): one client of ours does both, so their broker list must be the consumer's.
 */
const producerSections = [
  ['KAFKA', 'PRODUCER', 'NOTIFICATION', 'EVENT'],
  ['KAFKA', 'PRODUCER', 'TRANSFER', 'POSITION'],
] as const;
const [notificationProducer] = producerSections;

function mapProducers(m: Mapper, section: readonly string[]) {
  const brokers = asText(valueAt(m.tree, [...section, ...rdkafka, 'metadata.broker.list']) ?? '');
  // A different list there cannot be honoured: it is left unmarked, so it is named in the warning.
  for (const producer of producerSections) {
    const path = [...producer, ...rdkafka, 'metadata.broker.list'];
    const value = valueAt(m.tree, path);
    if (value !== undefined && (brokers === '' || asText(value) === brokers)) m.seen(path);
  }
  m.take('acks', [...notificationProducer, ...topicConf, 'request.required.acks'], (value, key) => {
    const text = asText(value);
    if (text === 'all' || text === '-1') return 'all';
    if (text === '1') return 'leader';
    throw new ConfigError(key, `must be all, -1 or 1 (notifications are never sent unacknowledged), got "${text}"`);
  });
  m.take('compression', [...notificationProducer, ...rdkafka, 'compression.codec']);
  mapKafkaSecurity(m, section, brokers);
}

/**
 * The consumer's TLS and SASL keys, mapped; the producers' (one client of ours serves all three, on the
 * consumer's brokers) must say the same, as librdkafka would run them, or the start is refused naming both.
 */
function mapKafkaSecurity(m: Mapper, section: readonly string[], brokers: string) {
  const { source, tree } = m;
  const conf = (block: readonly string[]) => [...block, ...rdkafka];
  const effective = (block: readonly string[], entry: SecurityKey): { text: string; path: string[] } => {
    let path = [...conf(block), entry.key];
    let value = valueAt(tree, path);
    if (value === undefined && entry.key === 'sasl.mechanisms') {
      const alias = [...conf(block), SASL_MECHANISM_ALIAS];
      const aliased = valueAt(tree, alias);
      if (aliased !== undefined) {
        path = alias;
        value = aliased;
      }
    }
    const text = value === undefined ? entry.unset : entry.convert(value, keyName(source, path));
    return { text, path };
  };
  for (const entry of kafkaSecurityKeys) {
    const consumer = effective(section, entry);
    if (valueAt(tree, consumer.path) !== undefined) {
      m.seen(consumer.path);
      m.values.push({ field: entry.field, text: consumer.text, key: keyName(source, consumer.path) });
    }
    for (const producer of producerSections) {
      if (valueAt(tree, conf(producer)) === undefined) continue;
      // A producer on other brokers is named in the warning already (its broker list); ours use the consumer's.
      const list = valueAt(tree, [...conf(producer), 'metadata.broker.list']);
      if (list !== undefined && brokers !== '' && asText(list) !== brokers) continue;
      const theirs = effective(producer, entry);
      const given = valueAt(tree, theirs.path) !== undefined;
      if (theirs.text !== consumer.text) {
        const shown = (side: { text: string; path: string[] }) =>
          valueAt(tree, side.path) === undefined
            ? 'unset'
            : entry.key.includes('password') || entry.key.endsWith('.pem')
              ? 'given'
              : `"${side.text}"`;
        throw new ConfigError(
          keyName(source, consumer.path),
          `and ${keyName(source, theirs.path)} differ (${shown(consumer)} and ${shown(theirs)}): the consumer and the producers share one connection setup here, so they must say the same`,
        );
      }
      if (given) m.seen(theirs.path);
    }
  }
}

const instrumentation = ['INSTRUMENTATION', 'METRICS'];

/**
 * INSTRUMENTATION.METRICS: src/shared/setup.js sets central-services-metrics up with `config` (prefix,
 * defaultLabels) unless DISABLED; our /metrics then carries central-ledger's names so (original-metrics.ts).
 */
function mapInstrumentation(m: Mapper) {
  m.take('originalMetrics', [...instrumentation, 'DISABLED'], (value, key) => {
    const text = asText(value);
    if (text === 'true' || text === 'false') return text === 'true' ? 'false' : 'true';
    throw new ConfigError(key, `must be true or false, got "${text}"`);
  });
  m.take('metricsPrefix', [...instrumentation, 'config', 'prefix']);
  const labelsPath = [...instrumentation, 'config', 'defaultLabels'];
  m.take('metricsDefaultLabels', labelsPath, (value, key) =>
    metricLabelsText(value, key, (path) => m.seen([...labelsPath, ...path]), ConfigError),
  );
  // Accepted whatever its value: `timeout` was prom-client's collection interval, which its version (15,
  // under central-services-metrics 12) no longer reads; process metrics are sampled on scrape, as ours.
  // `labels`: only its fspId is read, by the one-at-a-time handler alone (mapCentralLedger); the batch handler
  // reads none of it, and no handler reads another key there.
  for (const [path] of leaves(m.tree)) {
    if (startsWith(path, [...instrumentation, 'config', 'timeout'])) m.seen(path);
    if (startsWith(path, [...instrumentation, 'labels'])) m.seen(path);
  }
}

const otherKafka: readonly string[][] = [
  ['KAFKA', 'CONSUMER'],
  ['KAFKA', 'PRODUCER'],
  ['KAFKA', 'EVENT_TYPE_ACTION_TOPIC_MAP'],
];

/** Everything else the position handler of the original reads, that has no equivalent here: named. */
function notHonoured(m: Mapper, section: readonly string[]): string[] {
  const positionKeys: readonly (readonly string[])[] = [
    ['PORT'],
    ['DATABASE'],
    ['AMOUNT'],
    ['HUB_PARTICIPANT'],
    ['CACHE'],
    ['ERROR_HANDLING'],
    ['INSTRUMENTATION'],
    ['SETTLEMENT_MODELS'],
    section,
    ...producerSections,
    ['KAFKA', 'EVENT_TYPE_ACTION_TOPIC_MAP', 'POSITION', 'PREPARE'],
    ['KAFKA', 'EVENT_TYPE_ACTION_TOPIC_MAP', 'POSITION', 'COMMIT'],
    ['KAFKA', 'TOPIC_TEMPLATES', 'GENERAL_TOPIC_TEMPLATE'],
  ];
  const named: string[] = [];
  for (const [path] of leaves(m.tree)) {
    if (m.used.has(pathKey(path))) continue;
    const read = positionKeys.some((prefix) => startsWith(path, prefix));
    if (unreadKeys.some((prefix) => startsWith(path, prefix))) continue;
    const other = otherServiceKeys.some((prefix) => startsWith(path, prefix));
    const otherKafkaSection = otherKafka.some((prefix) => startsWith(path, prefix));
    if (read || (!other && !otherKafkaSection)) named.push(keyName(m.source, path));
  }
  return named;
}

/**
 * Variables of the libraries central-ledger's handler runs on, each read through rc (any case of the prefix):
 * central-services-logger's `CSL_` and event-sdk's `EVENT_SDK_`, which Mojaloop's charts set. Named in the
 * start-up warning unless honoured: `CSL_LOG_LEVEL` and `CSL_LOG_FILTER` are our log settings' aliases, and
 * `CSL_LOG_TRANSPORT=console` is what we do (JSON lines on stderr). Any other transport (`file` writes
 * logs/combined.log) is not: the handler writes nothing to disk. event-sdk's tracing, audit events and sidecar
 * have no counterpart here.
 */
export function libraryVariablesNotHonoured(env: NodeJS.ProcessEnv): string[] {
  const named: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (upper.startsWith('EVENT_SDK_')) named.push(name);
    else if (upper.startsWith('CSL_')) {
      if (name === 'CSL_LOG_LEVEL' || name === 'CSL_LOG_FILTER') continue;
      if (name === 'CSL_LOG_TRANSPORT' && value === 'console') continue;
      named.push(name);
    }
  }
  return named.sort();
}
