import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnvFile } from '@mojafast/testkit';
import { execForm, parseDockerfile, splitStages } from './dockerfile.js';
import { type Compose, dockerfileEnv, type K8sObject, k8sEnv, loadCompose, loadK8s, podSpecOf } from './infra.js';
import type { ServiceSpec } from './services.js';

/**
 * How the services of the compose file (or the Deployments of the Kubernetes manifests) become local
 * processes: each of ours gets the env its container gets (compose: image ENV < env_file <
 * environment; Kubernetes: image ENV < envFrom ConfigMaps/Secrets < env), its mounted config files at their
 * place in this checkout, and only these rewrites, because a host has one loopback where the deployment has
 * one per container (compose) or pod (Kubernetes):
 * - host names (service names, every container's own 127.0.0.1/0.0.0.0) → 127.0.0.1;
 * - ports that our services listen on → free ports, and every URL or host:port that reached them (through a
 *   Kubernetes Service's port → targetPort too) → the new one;
 * - the cluster's Kafka and MySQL → the local ones of `infra/svc start` (`LocalInfra`);
 * - the images' `/profiles` directory → a directory of the run.
 */
export interface ClusterProcess {
  readonly spec: ServiceSpec;
  readonly composeService: string;
  readonly env: Record<string, string>;
  /** The container's command: compose `command` / Kubernetes `command` + `args`, else the image's CMD. */
  readonly command: readonly string[];
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

/** Where a host:port seen from inside a container leads: a loopback of ours, or the cluster's Kafka or MySQL. */
type Destination = { readonly ns: string; readonly port: number } | 'kafka' | 'mysql' | undefined;

/** What a deployment file says about the containers: their env, mounts, loopbacks and names. */
interface Topology {
  /** The env the container sees before any rewrite. */
  envOf(spec: ServiceSpec): Record<string, string>;
  /** The command the container runs. */
  commandOf(spec: ServiceSpec): string[];
  /** Host files mounted into the container: [path here, path in the container]. */
  mountsOf(spec: ServiceSpec): [string, string][];
  /** The loopback (network namespace) the container has; compose's `network_mode: service:X` shares X's. */
  namespaceOf(spec: ServiceSpec): string;
  /** Where `host:port`, as the container of `from` sees it, leads. */
  resolve(from: ServiceSpec, host: string, port: number): Destination;
  /** Whether a bare host name names one of the deployment's services. */
  isServiceName(host: string): boolean;
}

/** The image's CMD (exec form, last stage): what the container runs when nothing replaces it. */
function imageCommand(repoRoot: string, spec: ServiceSpec): string[] {
  const stages = splitStages(parseDockerfile(readFileSync(join(repoRoot, spec.dockerfile), 'utf8')));
  const cmd = (stages.at(-1) ?? []).filter((i) => i.keyword === 'CMD').at(-1);
  const command = cmd ? execForm(cmd.args) : undefined;
  if (!command) throw new Error(`${spec.dockerfile} has no exec-form CMD`);
  return command;
}

function composeTopology(repoRoot: string, compose: Compose): Topology {
  const composeDir = join(repoRoot, 'infra/compose');
  const serviceOf = (spec: ServiceSpec) => {
    const service = compose.services[spec.composeService];
    if (!service) throw new Error(`compose has no service ${spec.composeService}`);
    return service;
  };
  const nsOfName = (name: string) => {
    const mode = compose.services[name]?.network_mode;
    return mode?.startsWith('service:') ? mode.slice('service:'.length) : name;
  };
  // A service or container name.
  const named = (host: string) =>
    Object.entries(compose.services).find(
      ([name, service]) => name === host || (service as { container_name?: string }).container_name === host,
    )?.[0];
  return {
    envOf(spec) {
      // image ENV < env_file < environment, as compose builds a container's env.
      const service = serviceOf(spec);
      const env = dockerfileEnv(repoRoot, spec);
      const envFiles = (service as { env_file?: string | string[] }).env_file;
      for (const file of typeof envFiles === 'string' ? [envFiles] : (envFiles ?? []))
        Object.assign(env, parseEnvFile(readFileSync(resolve(composeDir, file), 'utf8')));
      for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = String(value ?? '');
      return env;
    },
    commandOf(spec) {
      const command = serviceOf(spec).command;
      if (Array.isArray(command)) return command.map(String);
      return typeof command === 'string' ? command.trim().split(/\s+/) : imageCommand(repoRoot, spec);
    },
    mountsOf(spec) {
      return (serviceOf(spec).volumes ?? []).flatMap((volume): [string, string][] => {
        const [source, target] = volume.split(':');
        if (!source || !target || !(source.startsWith('.') || isAbsolute(source))) return [];
        return [[resolve(composeDir, source), target]];
      });
    },
    namespaceOf: (spec) => nsOfName(spec.composeService),
    resolve(from, host, port) {
      const target = loopbackHosts.has(host) ? nsOfName(from.composeService) : named(host);
      if (target === undefined) return undefined;
      const image = compose.services[target]?.image ?? '';
      if (/kafka/.test(image)) return 'kafka';
      if (/mysql|mariadb/.test(image)) return 'mysql';
      return { ns: nsOfName(target), port };
    },
    isServiceName: (host) => named(host) !== undefined,
  };
}

function k8sTopology(repoRoot: string, objects: readonly K8sObject[]): Topology {
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const labelsOf = (deployment: K8sObject) =>
    ((deployment.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata
      ?.labels ?? {}) as Record<string, string>;
  const portsOf = (deployment: K8sObject) => podSpecOf(deployment).containers.flatMap((c) => c.ports ?? []);
  return {
    envOf: (spec) => k8sEnv(repoRoot, objects, spec).env,
    commandOf(spec) {
      const container = k8sEnv(repoRoot, objects, spec).container as { command?: string[]; args?: string[] };
      // command replaces the image's ENTRYPOINT (ours have none), args its CMD.
      if (container.command) return [...container.command, ...(container.args ?? [])];
      return container.args ?? imageCommand(repoRoot, spec);
    },
    // The manifests mount only emptyDirs (/profiles); a ConfigMap file mount would be listed here.
    mountsOf: () => [],
    namespaceOf: (spec) => spec.k8sDeployment,
    resolve(from, host, port) {
      if (loopbackHosts.has(host)) return { ns: from.k8sDeployment, port };
      // A Service: its port's targetPort on the pods its selector picks.
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === host);
      if (!service) return undefined;
      const spec = service.spec as {
        selector?: Record<string, string>;
        ports?: { port: number; targetPort?: number | string }[];
      };
      const deployment = deployments.find((d) =>
        Object.entries(spec.selector ?? {}).every(([k, v]) => labelsOf(d)[k] === v),
      );
      const servicePort = spec.ports?.find((p) => p.port === port);
      if (!deployment || !servicePort) return undefined;
      const target = servicePort.targetPort ?? servicePort.port;
      const containerPort =
        typeof target === 'number' ? target : portsOf(deployment).find((p) => p.name === target)?.containerPort;
      return containerPort === undefined ? undefined : { ns: deployment.metadata.name, port: containerPort };
    },
    isServiceName: (host) => objects.some((o) => o.kind === 'Service' && o.metadata.name === host),
  };
}

/**
 * Plans the local processes for `specs` from the compose file or the Kubernetes manifests: env, mounts and
 * ports, with the rewrites above. `overrides` are laid over each service's env last (the run's fresh
 * database and topics).
 */
export async function planCluster(options: {
  repoRoot: string;
  from: 'compose' | 'k8s';
  specs: readonly ServiceSpec[];
  infra: LocalInfra;
  runDir: string;
  overrides?: Partial<Record<ServiceSpec['id'], Record<string, string>>>;
}): Promise<ClusterProcess[]> {
  const { specs, infra } = options;
  const topology =
    options.from === 'compose'
      ? composeTopology(options.repoRoot, loadCompose(options.repoRoot))
      : k8sTopology(options.repoRoot, loadK8s(options.repoRoot));
  const raw = new Map(specs.map((spec) => [spec.id, topology.envOf(spec)]));

  // New ports for every listener: (namespace, port in the container) → port on this host.
  const moved = new Map<string, number>();
  const ports = new Map<ServiceSpec['id'], Record<string, number>>();
  for (const spec of specs) {
    const env = raw.get(spec.id) as Record<string, string>;
    const ns = topology.namespaceOf(spec);
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

  /**
   * host:port as the container of `from` sees it → host:port here. The cluster's Kafka and MySQL are not in
   * the manifests (Mojaloop's backend chart runs them): a broker list or a DB host that leads nowhere else is
   * taken as them.
   */
  const rewrite = (from: ServiceSpec, key: string, host: string, port: number): string | undefined => {
    let destination = topology.resolve(from, host, port);
    if (destination === undefined && !loopbackHosts.has(host)) {
      if (key === 'KAFKA_BROKERS') destination = 'kafka';
      else if (/DB_HOST$/.test(key)) destination = 'mysql';
    }
    if (destination === 'kafka') return infra.kafkaBrokers.join(',');
    if (destination === 'mysql') return `${infra.mysql.host}:${infra.mysql.port}`;
    if (destination === undefined) return undefined;
    const local = moved.get(`${destination.ns}|${destination.port}`);
    return local === undefined ? undefined : `127.0.0.1:${local}`;
  };

  return specs.map((spec) => {
    const env = raw.get(spec.id) as Record<string, string>;
    const listenerEnvs = new Set(spec.listeners.map((l) => l.env));
    for (const [key, value] of Object.entries(env)) {
      if (listenerEnvs.has(key)) continue;
      // A listen address or an advertised host name (SIM_PUBLIC_HOST=sim): this host's loopback.
      if (/HOST$/.test(key) && !/DB_HOST$/.test(key) && (loopbackHosts.has(value) || topology.isServiceName(value))) {
        env[key] = '127.0.0.1';
        continue;
      }
      const url = /^(https?:\/\/)([^/:]+):(\d+)(.*)$/.exec(value);
      if (url) {
        const local = rewrite(spec, key, url[2] as string, Number(url[3]));
        if (local) env[key] = `${url[1]}${local}${url[4]}`;
        continue;
      }
      // host:port lists (KAFKA_BROKERS)
      if (/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/.test(value)) {
        const parts = value.split(',').map((part) => {
          const [host, port] = part.split(':');
          return rewrite(spec, key, host as string, Number(port)) ?? part;
        });
        env[key] = [...new Set(parts)].join(',');
        continue;
      }
      // A bare host name with its port beside it (DB_HOST + DB_PORT).
      const portKey = key.replace(/HOST$/, 'PORT');
      if (portKey !== key && env[portKey] !== undefined) {
        const local = rewrite(spec, key, value, Number(env[portKey]));
        if (local) {
          const at = local.lastIndexOf(':');
          env[key] = local.slice(0, at);
          env[portKey] = local.slice(at + 1);
        }
      }
    }
    // A mounted config file is read from this checkout; /profiles (the images' writable dir) → runDir.
    for (const [local, target] of topology.mountsOf(spec)) {
      if (!existsSync(local)) throw new Error(`${spec.id}: mounted ${local} does not exist`);
      for (const [key, value] of Object.entries(env)) if (value === target) env[key] = local;
      if (target === configFileInContainer) env.CONFIG_FILE = local;
    }
    for (const [key, value] of Object.entries(env)) if (value === '/profiles') env[key] = options.runDir;
    Object.assign(env, options.overrides?.[spec.id] ?? {});
    return {
      spec,
      composeService: spec.composeService,
      env,
      command: topology.commandOf(spec),
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
