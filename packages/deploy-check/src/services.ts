/** A listening port of a service: the env variable that sets it and, for the simulators, an offset from it. */
export interface Listener {
  readonly name: string;
  readonly env: string;
  readonly offset?: number;
}

/** Where each of our services lives, how it is started, and which of its ports answer what. */
export interface ServiceSpec {
  readonly id: 'als' | 'position-handler' | 'sim';
  readonly packageName: string;
  readonly packageDir: string;
  /** Compiled entry, relative to the package: what the container's CMD runs. */
  readonly entry: string;
  /** The config module (schema + defaults), relative to the package. */
  readonly configModule: string;
  readonly dockerfile: string;
  readonly composeService: string;
  readonly k8sDeployment: string;
  readonly listeners: readonly Listener[];
  /** The env variable of the address the listeners bind; a container needs every interface. */
  readonly bindHostEnv?: string;
  readonly health: { readonly listener: string; readonly path: string };
  readonly metrics?: { readonly listener: string; readonly path: string };
  /** The dashboard (infra/grafana/dashboards/<name>.json) whose queries read this service's metrics. */
  readonly dashboard?: string;
}

export const services: readonly ServiceSpec[] = [
  {
    id: 'als',
    packageName: '@mojafast/als',
    packageDir: 'packages/als',
    entry: 'dist/als.js',
    configModule: 'src/config/index.ts',
    dockerfile: 'infra/containers/als.Dockerfile',
    composeService: 'account-lookup-service',
    k8sDeployment: 'account-lookup-service',
    listeners: [
      { name: 'api', env: 'ALS_PORT' },
      { name: 'admin', env: 'ALS_ADMIN_PORT' },
    ],
    bindHostEnv: 'ALS_HOST',
    health: { listener: 'admin', path: '/health' },
    metrics: { listener: 'admin', path: '/metrics' },
    dashboard: 'account-lookup-service',
  },
  {
    id: 'position-handler',
    packageName: '@mojafast/position-handler',
    packageDir: 'packages/position-handler',
    entry: 'dist/position.js',
    configModule: 'src/config/index.ts',
    dockerfile: 'infra/containers/position-handler.Dockerfile',
    composeService: 'central-handler-position-batch',
    k8sDeployment: 'central-handler-position-batch',
    listeners: [{ name: 'http', env: 'POSITION_HTTP_PORT' }],
    bindHostEnv: 'POSITION_HTTP_HOST',
    health: { listener: 'http', path: '/health' },
    metrics: { listener: 'http', path: '/metrics' },
    dashboard: 'central-handler-position-batch',
  },
  {
    id: 'sim',
    packageName: '@mojafast/sim',
    packageDir: 'packages/sim',
    entry: 'dist/sim.js',
    // Its flags are the same settings as SIM_* variables, one schema for both (packages/sim/README.md).
    configModule: 'src/config.ts',
    dockerfile: 'infra/containers/sim.Dockerfile',
    composeService: 'sim',
    k8sDeployment: 'sim',
    listeners: [
      { name: 'admin', env: 'SIM_PORT_BASE', offset: 0 },
      { name: 'oracle', env: 'SIM_PORT_BASE', offset: 1 },
      { name: 'payee', env: 'SIM_PORT_BASE', offset: 2 },
      { name: 'payer', env: 'SIM_PORT_BASE', offset: 3 },
    ],
    // The simulators have no /health; the admin simulator's answer for the Hub is the probe.
    health: { listener: 'admin', path: '/participants/Hub' },
  },
];

/**
 * Where the services' sources are: this repository, or (MOJAFAST_SERVICES_ROOT) another checkout such as a
 * branch's worktree that has not been merged yet.
 */
export function servicesRoot(repoRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.MOJAFAST_SERVICES_ROOT ?? repoRoot;
}

/** The position handler's database variables for the database a play made for it. */
export function handlerDatabaseEnv(connection: {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
}): Record<string, string> {
  return {
    DB_HOST: connection.host,
    DB_PORT: String(connection.port),
    DB_USER: connection.user,
    DB_PASSWORD: connection.password,
    DB_NAME: connection.database,
  };
}
