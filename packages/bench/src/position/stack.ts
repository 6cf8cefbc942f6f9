import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { type InfraSettings, type KafkaSecurity, readTlsCredentials } from '@mojafast/testkit';
import { stateDir } from '../load/paths.js';

/**
 * Which of the local stacks a run is on: the plain servers, or the secure stack's (`infra/svc start --tls`):
 * the broker's SSL listener and the MariaDB that requires secure transport, encrypt-only as Mojaloop's
 * secure deployments run (brokers ask no client certificate), with the certificates verified against the
 * stack's CA. The bench's own clients, the handler and the passthrough all speak to the same stack.
 */
export type BenchStack = 'plain' | 'tls';

export const BENCH_STACKS: readonly BenchStack[] = ['plain', 'tls'];

export interface StackConnections {
  readonly stack: BenchStack;
  /** The broker the topics, the bench's clients and the handlers use. */
  readonly brokers: readonly string[];
  /** testkit's kafkajs security (the admin client and the kafkajs reader), undefined in plaintext. */
  readonly kafkajs: KafkaSecurity | undefined;
  /** tls.connect options of the bench's own Kafka sockets (the raw producer, @platformatic/kafka). */
  readonly tls: ConnectionOptions | undefined;
  /** The handlers' (and the passthrough's) TLS settings beside the DB_* and KAFKA_BROKERS the run sets. */
  readonly handlerEnv: Readonly<Record<string, string>>;
  /** infra/svc's folders of this stack's broker and database, for their pid files. */
  readonly kafkaDir: string;
  readonly mariadbDir: string;
}

export function stackConnections(stack: BenchStack, settings: InfraSettings): StackConnections {
  if (stack === 'plain') {
    return {
      stack,
      brokers: settings.kafka.brokers,
      kafkajs: undefined,
      tls: undefined,
      handlerEnv: {},
      kafkaDir: join(stateDir, 'kafka'),
      mariadbDir: join(stateDir, 'mariadb'),
    };
  }
  const { ca } = readTlsCredentials(settings);
  return {
    stack,
    brokers: settings.tls.kafka.sslBrokers,
    kafkajs: 'ssl',
    tls: { ca },
    handlerEnv: {
      POSITION_KAFKA_SECURITY_PROTOCOL: 'ssl',
      POSITION_KAFKA_SSL_CA_FILE: settings.tls.caFile,
      POSITION_DB_SSL: 'verify',
      POSITION_DB_SSL_CA_FILE: settings.tls.caFile,
    },
    kafkaDir: join(stateDir, 'kafka-tls'),
    mariadbDir: join(stateDir, 'mariadb-tls'),
  };
}
