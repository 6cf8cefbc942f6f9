import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnvFile } from '@mojafast/testkit';
import type { Compose, ComposeService } from './infra.js';
import { dockerfileEnv } from './infra.js';
import type { ServiceSpec } from './services.js';

/**
 * How the compose file's services become local processes (issue 16 item 6): each of ours gets the env its
 * container gets (image ENV < env_file < environment), its mounted config files at their place in this
 * checkout, and only these rewrites, because a host has one loopback where compose has one per container:
 * - host names (compose service names, and every container's own 127.0.0.1/0.0.0.0) → 127.0.0.1;
 * - ports that our services listen on → free ports, and every URL or host:port that reached them → the new one;
 * - the compose file's Kafka and MySQL services → the local ones (infra/svc, `InfraSettings`);
 * - the image's `/profiles` volume → a directory of the run.
 */
export interface ClusterProcess {
  readonly spec: ServiceSpec;
  readonly composeService: string;
  readonly env: Record<string, string>;
  /** Where each listener binds, by the listener's name. */
  readonly ports: Record<string, number>;
}

export interface LocalInfra {
  readonly kafkaBrokers: readonly string[];
  readonly mysql: { readonly host: string; readonly port: number };
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '::1']);
/** Where the originals' images and ours read a mounted config file (WORKDIR /opt/app, config/default.json). */
const configFileInContainer = '/opt/app/config/default.json';

/** A free TCP port on 127.0.0.1 (asked of the kernel), or `count` consecutive free ones starting at it. */
export async function freePorts(count = 1): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await new Promise<number>((ok, fail) => {
      const server = createServer();
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => ok(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (base + count > 65535) continue;
    let free = true;
    for (let port = base + 1; port < base + count && free; port++) free = await isFree(port);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const server = createServer();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

/** The network namespace a compose service's loopback belongs to (`network_mode: service:X` shares X's). */
function namespaceOf(compose: Compose, name: string): string {
  const mode = compose.services[name]?.network_mode;
  return mode?.startsWith('service:') ? mode.slice('service:'.length) : name;
}

/** The compose service a host name names (service or container name), if any. */
function serviceNamed(compose: Compose, host: string): string | undefined {
  for (const [name, service] of Object.entries(compose.services)) {
    if (name === host || (service as { container_name?: string }).container_name === host) return name;
  }
  return undefined;
}

function imageIs(service: ComposeService | undefined, pattern: RegExp): boolean {
  return pattern.test(service?.image ?? '');
}

/**
 * Plans the local processes for `specs` (ours, in the compose file's profile `mojafast`): env, mounts and
 * ports, with the rewrites above. `overrides` are laid over each service's env last (the test's fresh
 * database and topics).
 */
export async function planCluster(options: {
  repoRoot: string;
  compose: Compose;
  specs: readonly ServiceSpec[];
  infra: LocalInfra;
  runDir: string;
  overrides?: Partial<Record<ServiceSpec['id'], Record<string, string>>>;
}): Promise<ClusterProcess[]> {
  const { compose, specs, infra } = options;
  const composeDir = join(options.repoRoot, 'infra/compose');

  // 1. The env each container sees: image ENV < env_file < environment.
  const raw = new Map<ServiceSpec['id'], Record<string, string>>();
  for (const spec of specs) {
    const service = compose.services[spec.composeService];
    if (!service) throw new Error(`compose has no service ${spec.composeService}`);
    const env = dockerfileEnv(options.repoRoot, spec);
    const envFiles = (service as { env_file?: string | string[] }).env_file;
    for (const file of typeof envFiles === 'string' ? [envFiles] : (envFiles ?? []))
      Object.assign(env, parseEnvFile(readFileSync(resolve(composeDir, file), 'utf8')));
    for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = String(value ?? '');
    raw.set(spec.id, env);
  }

  // 2. New ports for every listener: (namespace, port in the container) → port on this host.
  const moved = new Map<string, number>();
  const ports = new Map<ServiceSpec['id'], Record<string, number>>();
  for (const spec of specs) {
    const env = raw.get(spec.id) as Record<string, string>;
    const ns = namespaceOf(compose, spec.composeService);
    const byEnv = new Map<string, number>();
    const mine: Record<string, number> = {};
    for (const listener of spec.listeners) {
      const inContainer = Number(env[listener.env]) + (listener.offset ?? 0);
      if (!byEnv.has(listener.env)) {
        const span = Math.max(...spec.listeners.filter((l) => l.env === listener.env).map((l) => (l.offset ?? 0) + 1));
        byEnv.set(listener.env, await freePorts(span));
      }
      const local = (byEnv.get(listener.env) as number) + (listener.offset ?? 0);
      moved.set(`${ns}|${inContainer}`, local);
      mine[listener.name] = local;
    }
    for (const [name, port] of byEnv) env[name] = String(port);
    ports.set(spec.id, mine);
  }

  /** host:port as seen from `from`'s container → host:port on this machine. */
  const rewrite = (from: string, host: string, port: number): string | undefined => {
    const target = loopbackHosts.has(host) ? namespaceOf(compose, from) : serviceNamed(compose, host);
    if (target === undefined) return undefined;
    const ns = namespaceOf(compose, target);
    const local = moved.get(`${ns}|${port}`);
    if (local !== undefined) return `127.0.0.1:${local}`;
    const service = compose.services[target];
    if (imageIs(service, /kafka/)) return infra.kafkaBrokers.join(',');
    if (imageIs(service, /mysql|mariadb/)) return `${infra.mysql.host}:${infra.mysql.port}`;
    return undefined;
  };

  // 3. Rewrite addresses, bind hosts, mounts.
  return specs.map((spec) => {
    const service = compose.services[spec.composeService] as ComposeService;
    const env = raw.get(spec.id) as Record<string, string>;
    const listenerEnvs = new Set(spec.listeners.map((l) => l.env));
    for (const [key, value] of Object.entries(env)) {
      if (listenerEnvs.has(key)) continue;
      if (key === spec.bindHostEnv || (loopbackHosts.has(value) && /HOST$/.test(key))) {
        env[key] = '127.0.0.1';
        continue;
      }
      // URLs: http://host:port[/path]
      const url = /^(https?:\/\/)([^/:]+):(\d+)(.*)$/.exec(value);
      if (url) {
        const local = rewrite(spec.composeService, url[2] as string, Number(url[3]));
        if (local) env[key] = `${url[1]}${local}${url[4]}`;
        continue;
      }
      // host:port lists (KAFKA_BROKERS)
      if (/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/.test(value)) {
        const parts = value.split(',').map((part) => {
          const [host, port] = part.split(':');
          return rewrite(spec.composeService, host as string, Number(port)) ?? part;
        });
        env[key] = [...new Set(parts)].join(',');
        continue;
      }
      // A bare host name with its port beside it (DB_HOST + DB_PORT).
      const portKey = key.replace(/HOST$/, 'PORT');
      if (portKey !== key && serviceNamed(compose, value) !== undefined) {
        const local = rewrite(spec.composeService, value, Number(env[portKey] ?? 0));
        if (local) {
          const at = local.lastIndexOf(':');
          env[key] = local.slice(0, at);
          env[portKey] = local.slice(at + 1);
        } else env[key] = '127.0.0.1';
      }
    }
    // Volumes: a mounted config file is read from this checkout; /profiles (the image's writable dir) → runDir.
    for (const volume of service.volumes ?? []) {
      const [source, target] = volume.split(':');
      if (!source || !target || !(source.startsWith('.') || isAbsolute(source))) continue;
      const local = resolve(composeDir, source);
      if (!existsSync(local)) throw new Error(`${spec.composeService}: mounted ${source} does not exist (${local})`);
      for (const [key, value] of Object.entries(env)) if (value === target) env[key] = local;
      if (target === configFileInContainer) env.CONFIG_FILE = local;
    }
    for (const [key, value] of Object.entries(env)) if (value === '/profiles') env[key] = options.runDir;
    Object.assign(env, options.overrides?.[spec.id] ?? {});
    return {
      spec,
      composeService: spec.composeService,
      env,
      ports: ports.get(spec.id) as Record<string, number>,
    };
  });
}

/** Our services in the order compose starts them (depends_on among them). */
export function startOrder(compose: Compose, specs: readonly ServiceSpec[]): ServiceSpec[] {
  const ordered: ServiceSpec[] = [];
  const visit = (spec: ServiceSpec, path: readonly string[]) => {
    if (ordered.includes(spec)) return;
    if (path.includes(spec.id)) throw new Error(`compose depends_on cycle: ${[...path, spec.id].join(' -> ')}`);
    const deps = compose.services[spec.composeService]?.depends_on ?? [];
    for (const dep of Array.isArray(deps) ? deps : Object.keys(deps)) {
      const depSpec = specs.find((s) => s.composeService === dep);
      if (depSpec) visit(depSpec, [...path, spec.id]);
    }
    ordered.push(spec);
  };
  for (const spec of specs) visit(spec, []);
  return ordered;
}
