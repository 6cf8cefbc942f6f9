import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, mlApiAdapterInstallDir, type PrivateCentralLedger } from '@mojafast/testkit';
import { deepMerge, type RunningProcess, startProcess } from './processes.js';

/**
 * ml-api-adapter, the FSPs' HTTP front of the switch, built from its release source into the cache
 * (infra/ml-api-adapter): its API (POST/PUT/GET /transfers and /fxTransfers onto central-ledger's topics) and
 * its notification handler (central-ledger's notifications into FSP callbacks at the endpoints the admin API
 * holds) in one process, as its own default runs them, on a private switch's topics, groups and admin API.
 */
export interface RunningMlApiAdapter extends RunningProcess {
  readonly url: string;
}

export interface MlApiAdapterOptions {
  /** Its API_TYPE: `fspiop` (its default) or `iso20022`. */
  readonly apiType?: 'fspiop' | 'iso20022';
  readonly brokers: readonly string[];
}

type Json = Record<string, unknown>;

/** Every Kafka client's broker list and (prefixed) consumer group, reduced to the keys changed. */
function kafkaClients(node: unknown, brokers: string, prefix: string): Json | undefined {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const n = node as Json;
  if (n.rdkafkaConf) {
    const conf = n.rdkafkaConf as Json;
    const rdkafkaConf: Json = { 'metadata.broker.list': brokers };
    if (conf['group.id']) rdkafkaConf['group.id'] = prefix + String(conf['group.id']);
    return { rdkafkaConf };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(n)) {
    const changed = kafkaClients(value, brokers, prefix);
    if (changed !== undefined) out[key] = changed;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Its config/default.json with a private switch's settings: the whole file, as rc reads it (MLAPI_config). */
export function mlApiAdapterConfig(sw: PrivateCentralLedger, port: number, options: MlApiAdapterOptions): Json {
  const app = join(mlApiAdapterInstallDir(), 'app');
  const base = JSON.parse(readFileSync(join(app, 'config', 'default.json'), 'utf8')) as Json;
  const kafka = base.KAFKA as { CONSUMER: unknown; PRODUCER: unknown; TOPIC_TEMPLATES: Json };
  const template = (kafka.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE as { TEMPLATE: string }).TEMPLATE;
  const brokers = options.brokers.join(',');
  return deepMerge(base, {
    API_TYPE: options.apiType ?? 'fspiop',
    PORT: port,
    HOSTNAME: `http://127.0.0.1:${port}`,
    ENDPOINT_SOURCE_URL: sw.adminUrl,
    ENDPOINT_HEALTH_URL: `${sw.adminUrl}/health`,
    // Both default to a Redis Cluster; inter-scheme proxies and the payload cache are not part of a local switch.
    PROXY_CACHE: { enabled: false },
    PAYLOAD_CACHE: { enabled: false },
    INSTRUMENTATION: { METRICS: { DISABLED: true } },
    KAFKA: {
      ...kafkaClients({ CONSUMER: kafka.CONSUMER, PRODUCER: kafka.PRODUCER }, brokers, sw.prefix),
      TOPIC_TEMPLATES: { GENERAL_TOPIC_TEMPLATE: { TEMPLATE: sw.prefix + template } },
    },
  });
}

/** Resolves once GET /health answers 200; rejects when the process exits first or after `timeoutMs`. */
async function waitHealthy(p: RunningProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.child.exitCode !== null || p.child.signalCode !== null)
      throw new Error(
        `ml-api-adapter exited (${p.child.exitCode ?? p.child.signalCode}) at start: ${p.log().slice(-2000)}`,
      );
    const ok = await fetch(`${url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`ml-api-adapter not healthy within ${timeoutMs} ms: ${p.log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startMlApiAdapter(
  sw: PrivateCentralLedger,
  options: MlApiAdapterOptions,
  timeoutMs = 120_000,
): Promise<RunningMlApiAdapter> {
  const home = mlApiAdapterInstallDir();
  const port = await freePort();
  const configFile = join(sw.env.CENTRAL_LEDGER_RUN_DIR as string, `ml-api-adapter-${port}.json`);
  writeFileSync(configFile, `${JSON.stringify(mlApiAdapterConfig(sw, port, options), null, 2)}\n`);
  const p = startProcess(join(home, 'node/node_modules/node/bin/node'), ['src/api/index.js'], {
    cwd: join(home, 'app'),
    env: {
      ...process.env,
      MLAPI_config: configFile,
      LOG_LEVEL: process.env.ML_API_ADAPTER_LOG_LEVEL ?? 'warn',
      EVENT_SDK_SIDECAR_DISABLED: 'true',
      EVENT_SDK_LOG_FILTER: 'log:error',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(p, url, timeoutMs);
  } catch (error) {
    await p.stop();
    throw error;
  }
  return { ...p, url };
}
