export interface AlsEnvOptions {
  /** central-ledger's admin API: the recording simulators' ledger URL. */
  readonly switchEndpoint: string;
  readonly apiPort: number;
  readonly adminPort: number;
  readonly database: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly password: string;
    readonly name: string;
  };
}

/**
 * The rc overrides (`ALS_A__B`) over the original's own config/default.json that both the original and ours
 * (drop-in) run with in a parity run: the same file, the same variables. The file's proxy cache (a Redis
 * Cluster) is turned off: inter-scheme discovery is not in the corpus, and the project's Redis is one node.
 */
export function alsEnv(o: AlsEnvOptions): Record<string, string> {
  return {
    ALS_API_PORT: String(o.apiPort),
    ALS_ADMIN_PORT: String(o.adminPort),
    ALS_SWITCH_ENDPOINT: o.switchEndpoint,
    ALS_DATABASE__HOST: o.database.host,
    ALS_DATABASE__PORT: String(o.database.port),
    ALS_DATABASE__USER: o.database.user,
    ALS_DATABASE__PASSWORD: o.database.password,
    ALS_DATABASE__DATABASE: o.database.name,
    ALS_PROXY_CACHE__enabled: 'false',
  };
}
