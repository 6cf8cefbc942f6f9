import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { ConfigSchema } from './config-schema.js';
import { envOf, parseDockerfile } from './dockerfile.js';
import type { Listener, ServiceSpec } from './services.js';

// Loose views of the files: only the fields the checks read, everything optional until asserted.
export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  profiles?: string[];
  network_mode?: string;
  volumes?: string[];
  command?: string | string[];
  healthcheck?: { test?: string | string[] };
}
export interface Compose {
  services: Record<string, ComposeService>;
}

export interface K8sContainer {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
}

export function readYaml<T>(path: string): T {
  return parse(readFileSync(path, 'utf8')) as T;
}

export function loadCompose(repoRoot: string): Compose {
  return readYaml<Compose>(join(repoRoot, 'infra/compose/compose.yaml'));
}

/** Every object of every manifest in infra/k8s (multi-document YAML). */
export function loadK8s(repoRoot: string): K8sObject[] {
  const dir = join(repoRoot, 'infra/k8s');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJSON() as K8sObject));
}

export function k8sObject(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in infra/k8s`);
  return found;
}

export function podSpecOf(deployment: K8sObject): {
  containers: K8sContainer[];
  annotations: Record<string, string>;
  replicas: number | undefined;
} {
  const spec = deployment.spec as {
    replicas?: number;
    template: { metadata?: { annotations?: Record<string, string> }; spec: { containers: K8sContainer[] } };
  };
  return {
    containers: spec.template.spec.containers,
    annotations: spec.template.metadata?.annotations ?? {},
    replicas: spec.replicas,
  };
}

export function dockerfileEnv(repoRoot: string, spec: ServiceSpec): Record<string, string> {
  return envOf(parseDockerfile(readFileSync(join(repoRoot, spec.dockerfile), 'utf8')));
}

/** The env a compose service's process sees: the image's ENV, then the compose file's environment. */
export function composeEnv(repoRoot: string, compose: Compose, spec: ServiceSpec): Record<string, string> {
  const service = compose.services[spec.composeService];
  if (!service) throw new Error(`compose has no service ${spec.composeService}`);
  const env = dockerfileEnv(repoRoot, spec);
  for (const [key, value] of Object.entries(service.environment ?? {})) env[key] = String(value ?? '');
  return env;
}

/** The env a Deployment's container sees: the image's ENV, then envFrom ConfigMaps/Secrets, then env. */
export function k8sEnv(
  repoRoot: string,
  objects: readonly K8sObject[],
  spec: ServiceSpec,
): { env: Record<string, string>; container: K8sContainer } {
  const { containers } = podSpecOf(k8sObject(objects, 'Deployment', spec.k8sDeployment));
  const container = containers[0];
  if (!container) throw new Error(`Deployment ${spec.k8sDeployment} has no container`);
  const env = dockerfileEnv(repoRoot, spec);
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, k8sObject(objects, 'ConfigMap', source.configMapRef.name).data);
    if (source.secretRef) Object.assign(env, k8sObject(objects, 'Secret', source.secretRef.name).stringData);
  }
  for (const { name, value } of container.env ?? []) env[name] = value ?? '';
  return { env, container };
}

/** The port a listener binds given the env the process sees, falling back to the service's default. */
export function portOf(listener: Listener, env: Record<string, string>, schema: ConfigSchema): number {
  const raw = env[listener.env] ?? schema.defaultOf(listener.env);
  return Number(raw ?? 0) + (listener.offset ?? 0);
}

export function listener(spec: ServiceSpec, name: string): Listener {
  const found = spec.listeners.find((l) => l.name === name);
  if (!found) throw new Error(`${spec.id} has no listener ${name}`);
  return found;
}

export interface DashboardPanel {
  id: number;
  title: string;
  datasource?: { uid?: string };
  targets?: { expr?: string; datasource?: { uid?: string } }[];
}
export interface Dashboard {
  uid: string;
  title: string;
  panels: DashboardPanel[];
  templating?: { list: { name: string; type: string; query?: unknown }[] };
}

export function loadDashboards(repoRoot: string): Map<string, Dashboard> {
  const dir = join(repoRoot, 'infra/grafana/dashboards');
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, f), 'utf8')) as Dashboard]),
  );
}

export function dashboardExprs(dashboard: Dashboard): string[] {
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
}
