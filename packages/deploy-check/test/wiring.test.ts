import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  composeEnv,
  dashboardExprs,
  dockerfileEnv,
  execForm,
  type K8sObject,
  k8sEnv,
  k8sObject,
  layerRecipe,
  listener,
  loadCompose,
  loadDashboards,
  loadK8s,
  loadSchema,
  metricNamesIn,
  parseDockerfile,
  podSpecOf,
  portOf,
  readPackage,
  readYaml,
  type ServiceSpec,
  services,
  servicesRoot,
  splitStages,
} from '../src/index.js';

const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const root = servicesRoot(repoRoot);
const compose = loadCompose(repoRoot);
const k8s = loadK8s(repoRoot);
const dashboards = loadDashboards(repoRoot);
const prometheus = readYaml<{ scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] }>(
  join(repoRoot, 'infra/prometheus/prometheus.yml'),
);
const scrapeTargets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets));

function selectedServices(deployment: K8sObject): K8sObject[] {
  const labels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata
    .labels;
  return k8s.filter((o) => {
    const selector = (o.spec as { selector?: Record<string, string> } | undefined)?.selector;
    return o.kind === 'Service' && selector && Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
}

describe.each(services)('$id', (spec: ServiceSpec) => {
  it('every env variable its Dockerfile, compose service and Deployment set is one it reads', async () => {
    const schema = await loadSchema(root, spec);
    const set = new Set([
      ...Object.keys(dockerfileEnv(repoRoot, spec)),
      ...Object.keys(composeEnv(repoRoot, compose, spec)),
      ...Object.keys(k8sEnv(repoRoot, k8s, spec).env),
    ]);
    set.delete('NODE_ENV');
    expect([...set].filter((name) => !schema.envNames.has(name))).toEqual([]);
  });

  it('its Dockerfile builds the package on the Node 24 base and runs its entry as non-root with a health check', () => {
    const instructions = parseDockerfile(readFileSync(join(repoRoot, spec.dockerfile), 'utf8'));
    const stages = splitStages(instructions);
    const globalArgs = stages[0] ?? [];
    expect(globalArgs.map((i) => i.args)).toContainEqual(expect.stringMatching(/^NODE_IMAGE=node:24\.\d+\.\d+-\S+$/));
    const froms = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^\$\{NODE_IMAGE\}( AS \w+)?$/);

    const packageName = (
      JSON.parse(readFileSync(join(root, spec.packageDir, 'package.json'), 'utf8')) as { name: string }
    ).name;
    expect(packageName).toBe(spec.packageName);
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs).toContainEqual(expect.stringContaining(`--filter "${spec.packageName}..." run build`));
    expect(runs).toContainEqual(expect.stringContaining(`--filter ${spec.packageName} deploy --legacy --prod`));

    const last = stages.at(-1) ?? [];
    const user = last.find((i) => i.keyword === 'USER')?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(last.find((i) => i.keyword === 'STOPSIGNAL')?.args).toBe('SIGTERM');
    expect(execForm(last.find((i) => i.keyword === 'CMD')?.args ?? '')).toEqual(['node', spec.entry]);
    const probe = execForm(last.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '')?.join(' ') ?? '';
    expect(probe).toContain(`process.env.${listener(spec, spec.health.listener).env}`);
    expect(probe).toContain(spec.health.path);
    expect(existsSync(join(root, spec.packageDir, spec.entry.replace(/^dist/, 'src').replace(/\.js$/, '.ts')))).toBe(
      true,
    );
  });

  it('its image holds the production deploy alone, each package of it packed by a files field that leaves src/ and test/ out', () => {
    // The bad Dockerfile this refuses: a final stage that COPYs the build context or packages/ (src/, test/),
    // or a deploy without --prod (devDependencies such as @mojaloop/api-snippets in the image).
    const recipe = layerRecipe(readFileSync(join(repoRoot, spec.dockerfile), 'utf8'));
    expect(recipe.deploy).toMatch(new RegExp(`--filter ${spec.packageName} deploy .*--prod\\b`));
    expect(recipe.build).toContainEqual(`pnpm --filter "${spec.packageName}..." run build`);
    expect(recipe.dest).toBe('./');

    // The package and every workspace package it needs at run time, through their dependencies.
    const byName = new Map(
      readdirSync(join(root, 'packages')).map((dir) => {
        const path = join(root, 'packages', dir);
        return [readPackage(path).name, path] as const;
      }),
    );
    const shipped = new Set<string>([spec.packageName]);
    for (const name of shipped) {
      const dependencies = readPackage(byName.get(name) ?? '').dependencies ?? {};
      for (const [dependency, range] of Object.entries(dependencies)) {
        if (range.startsWith('workspace:')) shipped.add(dependency);
      }
    }
    for (const name of shipped) {
      const { files } = readPackage(byName.get(name) ?? '');
      expect(files ?? [], `${name} needs a "files" field with dist`).toContain('dist');
      const included = (files ?? []).filter((f) => !f.startsWith('!'));
      expect(
        included.filter((f) => /^(\.\/)?(src|test)(\/|$)/.test(f)),
        name,
      ).toEqual([]);
    }
  });

  it('compose: published ports, bind address, health check port and Prometheus target match its listeners', async () => {
    const schema = await loadSchema(root, spec);
    const env = composeEnv(repoRoot, compose, spec);
    const service = compose.services[spec.composeService];
    expect(service?.build?.dockerfile).toBe(spec.dockerfile);
    expect(resolve(repoRoot, 'infra/compose', service?.build?.context ?? '')).toBe(repoRoot);
    const ports = spec.listeners.map((l) => portOf(l, env, schema));
    for (const published of service?.ports ?? []) expect(ports).toContain(Number(published.split(':').at(-1)));
    if (spec.bindHostEnv) expect(env[spec.bindHostEnv]).toBe('0.0.0.0');
    expect(portOf(listener(spec, spec.health.listener), env, schema)).toBeGreaterThan(0);
    if (spec.metrics) {
      const port = portOf(listener(spec, spec.metrics.listener), env, schema);
      expect(scrapeTargets).toContain(`${spec.composeService}:${port}`);
    }
  });

  it('Kubernetes: probes, container ports, bind address, scrape annotation and Services match its listeners', async () => {
    const schema = await loadSchema(root, spec);
    const { env, container } = k8sEnv(repoRoot, k8s, spec);
    const deployment = k8sObject(k8s, 'Deployment', spec.k8sDeployment);
    const { annotations } = podSpecOf(deployment);
    const ports = spec.listeners.map((l) => portOf(l, env, schema));
    const named = new Map((container.ports ?? []).map((p) => [p.name, p.containerPort]));
    for (const { containerPort } of container.ports ?? []) expect(ports).toContain(containerPort);
    if (spec.bindHostEnv) expect(env[spec.bindHostEnv]).toBe('0.0.0.0');

    const healthPort = portOf(listener(spec, spec.health.listener), env, schema);
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      expect(probe?.httpGet?.path).toBe(spec.health.path);
      const port = probe?.httpGet?.port;
      expect(typeof port === 'string' ? named.get(port) : port).toBe(healthPort);
    }
    expect(container.resources?.requests?.cpu).toBeDefined();
    expect(container.resources?.requests?.memory).toBeDefined();
    if (spec.metrics) {
      expect(annotations['prometheus.io/port']).toBe(
        String(portOf(listener(spec, spec.metrics.listener), env, schema)),
      );
      expect(annotations['prometheus.io/path']).toBe(spec.metrics.path);
    }
    const exposed = selectedServices(deployment);
    expect(exposed.length).toBeGreaterThan(0);
    for (const service of exposed) {
      for (const port of (service.spec as { ports: { targetPort: string | number }[] }).ports) {
        const target = typeof port.targetPort === 'string' ? named.get(port.targetPort) : port.targetPort;
        expect(ports).toContain(target);
      }
    }
  });
});

// position-handler: a failed start-up exits non-zero (packages/position-handler/test/start-failure.test.ts).

describe('compose', () => {
  it('every depends_on names a service of the file', () => {
    for (const service of Object.values(compose.services)) {
      const dependencies = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const dependency of dependencies) expect(Object.keys(compose.services)).toContain(dependency);
    }
  });

  it('the ALS and the simulators reach each other at the ports they listen on, on a shared loopback or by service name', async () => {
    const [alsSpec, simSpec] = [
      services.find((s) => s.id === 'als'),
      services.find((s) => s.id === 'sim'),
    ] as ServiceSpec[];
    if (!alsSpec || !simSpec) throw new Error('the service list lacks the ALS or the simulators');
    const alsEnv = composeEnv(repoRoot, compose, alsSpec);
    const simEnv = composeEnv(repoRoot, compose, simSpec);
    const [alsSchema, simSchema] = await Promise.all([loadSchema(root, alsSpec), loadSchema(root, simSpec)]);
    const sharesNetwork = (a: ServiceSpec, b: ServiceSpec) =>
      compose.services[a.composeService]?.network_mode === `service:${b.composeService}` ||
      compose.services[b.composeService]?.network_mode === `service:${a.composeService}`;
    const links: [string | undefined, ServiceSpec, number][] = [
      [alsEnv.ALS_SWITCH_ENDPOINT, simSpec, portOf(listener(simSpec, 'admin'), simEnv, simSchema)],
      [alsEnv.ALS_ORACLE_URL, simSpec, portOf(listener(simSpec, 'oracle'), simEnv, simSchema)],
      [simEnv.SIM_ALS_URL, alsSpec, portOf(listener(alsSpec, 'api'), alsEnv, alsSchema)],
    ];
    for (const [url, target, port] of links) {
      const { hostname, port: urlPort } = new URL(url ?? '');
      expect(Number(urlPort)).toBe(port);
      if (hostname === '127.0.0.1' || hostname === 'localhost') expect(sharesNetwork(alsSpec, simSpec)).toBe(true);
      else expect(hostname).toBe(target.composeService);
    }
  });

  it('creates the topics the position handler consumes and produces, and the original handler is mapped to the same topic', () => {
    const spec = services.find((s) => s.id === 'position-handler') as ServiceSpec;
    const env = composeEnv(repoRoot, compose, spec);
    const command = [compose.services['kafka-provisioning']?.command ?? ''].flat().join('\n');
    for (const topic of [...(env.POSITION_TOPICS ?? '').split(','), env.NOTIFICATION_TOPIC ?? '']) {
      expect(topic).not.toBe('');
      expect(command).toContain(topic);
    }
    const original = JSON.parse(
      readFileSync(join(repoRoot, 'infra/compose/central-ledger/position-batch.json'), 'utf8'),
    );
    const topicMap = original.KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION as Record<string, string>;
    expect(new Set(Object.values(topicMap))).toEqual(new Set(env.POSITION_TOPICS?.split(',')));
    expect(original.DATABASE.HOST).toBe(env.DB_HOST);
  });

  it('never runs our position handler and the original together: their profiles are disjoint', () => {
    const ours = compose.services['central-handler-position-batch']?.profiles ?? [];
    const original = compose.services['central-handler-position-batch-original']?.profiles ?? [];
    expect(ours.length).toBeGreaterThan(0);
    expect(original.length).toBeGreaterThan(0);
    expect(ours.filter((p) => original.includes(p))).toEqual([]);
    const dotenv = readFileSync(join(repoRoot, 'infra/compose/.env'), 'utf8');
    expect(dotenv).toMatch(new RegExp(`^COMPOSE_PROFILES=${ours[0]}$`, 'm'));
  });

  it('Prometheus scrapes only services of the compose file, and Grafana reads Prometheus and the dashboards directory', () => {
    for (const target of scrapeTargets) {
      const host = target.split(':')[0] ?? '';
      expect(host === 'localhost' || host in compose.services).toBe(true);
    }
    const datasources = readYaml<{ datasources: { url: string; uid: string }[] }>(
      join(repoRoot, 'infra/grafana/provisioning/datasources/prometheus.yaml'),
    );
    const promPort = compose.services.prometheus?.ports?.[0]?.split(':').at(-1);
    expect(datasources.datasources[0]?.url).toBe(`http://prometheus:${promPort}`);
    const provider = readYaml<{ providers: { options: { path: string } }[] }>(
      join(repoRoot, 'infra/grafana/provisioning/dashboards/mojafast.yaml'),
    );
    const mounts = compose.services.grafana?.volumes ?? [];
    expect(mounts).toContain(`../grafana/dashboards:${provider.providers[0]?.options.path}:ro`);
  });
});

const grafanaVariable = (name: string) => `\${${name}}`;

describe('dashboards', () => {
  it('exist for the ALS and the position handler', () => {
    expect([...dashboards.keys()].sort()).toEqual(services.flatMap((s) => (s.dashboard ? [s.dashboard] : [])).sort());
  });

  it.each([...dashboards.entries()])(
    '%s: unique panel ids, the templated data source, a metric in every query',
    (_, dashboard) => {
      const ids = dashboard.panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(dashboard.templating?.list.map((v) => v.name)).toContain('datasource');
      for (const panel of dashboard.panels) {
        // Grafana's variable syntax, not a JavaScript template: every panel follows the data source picker.
        expect(panel.datasource?.uid).toBe(grafanaVariable('datasource'));
        expect(panel.targets?.length).toBeGreaterThan(0);
      }
      for (const expr of dashboardExprs(dashboard)) expect(metricNamesIn(expr).length).toBeGreaterThan(0);
    },
  );
});

describe('Kubernetes', () => {
  it('runs as many position handler replicas as the topic has partitions per POSITION_PARTITIONS_CONCURRENTLY', () => {
    const spec = services.find((s) => s.id === 'position-handler') as ServiceSpec;
    const deployment = k8sObject(k8s, 'Deployment', spec.k8sDeployment);
    const partitions = Number(deployment.metadata.annotations?.['mojafast.io/topic-partitions']);
    const concurrently = Number(k8sEnv(repoRoot, k8s, spec).env.POSITION_PARTITIONS_CONCURRENTLY);
    expect(partitions).toBeGreaterThan(0);
    expect(podSpecOf(deployment).replicas).toBe(partitions / concurrently);
  });

  it('has the simulators listen on the pod and hand out URLs with a Service name the ALS pod can resolve', () => {
    const spec = services.find((s) => s.id === 'sim') as ServiceSpec;
    const { env } = k8sEnv(repoRoot, k8s, spec);
    expect(env.SIM_HOST).toBe('0.0.0.0');
    expect(k8sObject(k8s, 'Service', env.SIM_PUBLIC_HOST as string).kind).toBe('Service');
  });

  it('leaves the ALS replica count to a HorizontalPodAutoscaler that targets it', () => {
    const deployment = k8sObject(k8s, 'Deployment', 'account-lookup-service');
    expect(podSpecOf(deployment).replicas).toBeUndefined();
    const hpa = k8sObject(k8s, 'HorizontalPodAutoscaler', 'account-lookup-service');
    expect((hpa.spec as { scaleTargetRef: unknown }).scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'account-lookup-service',
    });
  });

  it('lists every manifest in the kustomization, and ServiceMonitors name ports their Services have', () => {
    const kustomization = parse(readFileSync(join(repoRoot, 'infra/k8s/kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    for (const file of kustomization.resources) expect(existsSync(join(repoRoot, 'infra/k8s', file))).toBe(true);
    const monitors = k8s.filter((o) => o.kind === 'ServiceMonitor');
    expect(monitors.length).toBe(services.filter((s) => s.metrics).length);
    for (const monitor of monitors) {
      const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
      const portNames = k8s
        .filter(
          (o) =>
            o.kind === 'Service' &&
            Object.entries(spec.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
        )
        .flatMap((o) => (o.spec as { ports: { name: string }[] }).ports.map((p) => p.name));
      for (const endpoint of spec.endpoints) expect(portNames).toContain(endpoint.port);
    }
  });
});
