/**
 * The import directions of the two services, declared once. `pnpm layers` renders from here Biome's
 * `biome.layers.jsonc` (which lint enforces), the layer table of each service's docs/design.md and the one-line
 * order in its README; `layers.unit.test.ts` fails when one of them, or a folder under src/, is not this.
 */

/** A folder under a service's `src/` and what it may import of its siblings. */
export interface Layer {
  readonly folder: string;
  /** Sibling folders it may import; none for a leaf or the lowest layer. */
  readonly mayImport: readonly string[];
  /** Pure domain: no driver, framework or I/O module either. */
  readonly pure?: boolean;
  /** What the folder is, for the comment of biome.layers.jsonc. */
  readonly role: string;
  /** Said after the list in the design table's "may import" cell. */
  readonly note?: string;
  /** Said after the folder in the README's order line. */
  readonly readme?: string;
}

/** A folder under src/ that may import everything, with the reason. */
export interface Unrestricted {
  readonly folder: string;
  readonly why: string;
}

export interface ServiceLayers {
  /** The folder under packages/. */
  readonly pkg: string;
  /** The name in messages: "ALS layers, lowest first: …". */
  readonly name: string;
  /** Lowest first; siblings (neither imports the other) share a rank. */
  readonly ranks: readonly (readonly string[])[];
  /** Folders below no other and above none: any I/O layer may import them. */
  readonly leaves: readonly string[];
  readonly layers: readonly Layer[];
  /** A sub-folder with its own narrower rule: it imports only its parent folder's files. */
  readonly subLayers: readonly { readonly folder: string; readonly parent: string; readonly role: string }[];
  readonly unrestricted: readonly Unrestricted[];
  /** Files directly under src/: they wire the layers and import everything. */
  readonly wiring: readonly string[];
}

/** What a pure layer may not import: drivers, frameworks and I/O modules. */
export const IO_MODULES: readonly string[] = [
  'fastify',
  'fastify/**',
  'fastify-*',
  '@fastify/**',
  'undici',
  'undici/**',
  'kafkajs',
  'kafkajs/**',
  '@platformatic/**',
  'knex',
  'knex/**',
  'mysql',
  'mysql2',
  'mysql2/**',
  'ioredis',
  'ioredis/**',
  'redis',
  'pino',
  'pino/**',
  'pino-*',
  'prom-client',
  'prom-client/**',
  'cron',
  '@mojafast/service-kit',
  '@mojafast/service-kit/**',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:tls',
  'node:dgram',
  'node:dns',
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:cluster',
  'node:worker_threads',
  'http',
  'https',
  'net',
  'fs',
  'fs/promises',
  'child_process',
];

export const SERVICES: readonly ServiceLayers[] = [
  {
    pkg: 'als',
    name: 'ALS',
    ranks: [['fspiop'], ['discovery'], ['observe'], ['upstream'], ['handlers', 'http']],
    leaves: ['config', 'jws'],
    layers: [
      {
        folder: 'config',
        mayImport: [],
        role: 'the settings schema, read from file and environment',
      },
      { folder: 'jws', mayImport: [], role: 'JWS signing and validation' },
      {
        folder: 'fspiop',
        mayImport: [],
        role: 'protocol: versions, headers, error catalogue, body types and schemas, serialisers',
        note: 'it builds on `@mojafast/fspiop`, ajv and fast-json-stringify',
      },
      {
        folder: 'discovery',
        mayImport: ['fspiop'],
        pure: true,
        role: 'the flows as plain functions over DiscoveryPorts',
        note: 'I/O comes in through `DiscoveryPorts`',
        readme: 'the flows, pure: I/O through ports',
      },
      {
        folder: 'observe',
        mayImport: ['fspiop', 'discovery', 'config'],
        role: 'metrics and profiles (implements the observe port of discovery)',
      },
      {
        folder: 'upstream',
        mayImport: ['fspiop', 'discovery', 'observe', 'config', 'jws'],
        role: 'undici, caches, oracle registry (knex), proxy cache (ioredis): implements DiscoveryPorts',
      },
      {
        folder: 'handlers',
        mayImport: ['fspiop', 'discovery', 'observe', 'upstream', 'config', 'jws'],
        role: 'the timeout job (cron)',
      },
      {
        folder: 'http',
        mayImport: ['fspiop', 'discovery', 'observe', 'upstream', 'config', 'jws'],
        role: 'the fastify routes',
      },
    ],
    subLayers: [],
    unrestricted: [],
    wiring: ['main.ts', 'als.ts', 'command-line.ts', 'proxy-jws-setup.ts', 'index.ts'],
  },
  {
    pkg: 'position-handler',
    name: 'Position handler',
    ranks: [['ledger'], ['messages'], ['observe'], ['bus'], ['runner'], ['store']],
    leaves: ['config'],
    layers: [
      { folder: 'config', mayImport: [], role: 'the settings schema and the originals’ keys' },
      {
        folder: 'ledger',
        mayImport: [],
        pure: true,
        role: 'pure position math',
        note: 'it builds on `@mojafast/fspiop`',
        readme: 'pure position rules',
      },
      {
        folder: 'messages',
        mayImport: ['ledger'],
        pure: true,
        role: 'decode envelopes, encode notifications',
      },
      {
        folder: 'observe',
        mayImport: ['ledger', 'messages', 'config'],
        role: 'logger, metrics, profiler, /health server',
      },
      {
        folder: 'bus',
        mayImport: ['ledger', 'messages', 'observe', 'config'],
        role: 'the narrow Kafka interface and its kafkajs / @platformatic/kafka implementations',
      },
      {
        folder: 'runner',
        mayImport: ['ledger', 'messages', 'observe', 'bus', 'config'],
        role: 'the loop and the unit of work (declares BatchStore / BatchTransaction, the store’s port)',
        note: 'the unit of work declares `BatchStore` / `BatchTransaction`, the store’s port',
      },
      {
        folder: 'store',
        mayImport: ['ledger', 'messages', 'observe', 'bus', 'runner', 'config'],
        role: 'knex and mysql2: implements the runner’s port',
        note: 'it implements the runner’s port',
      },
    ],
    subLayers: [{ folder: 'ledger/actions', parent: 'ledger', role: 'one module per action' }],
    unrestricted: [
      {
        folder: 'simulator',
        why: 'the deterministic simulation drives the real runner and fetcher on a simulated log and store',
      },
      {
        folder: 'testing',
        why: 'fixtures for tests and benchmarks (`@mojafast/position-handler/testing`), not product API',
      },
    ],
    wiring: ['main.ts', 'position.ts', 'command-line.ts', 'provision-cli.ts', 'security.ts', 'index.ts'],
  },
];
