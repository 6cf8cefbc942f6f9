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
  /** The proxy cache on, as one Redis at this database (the inter-scheme corpus); absent: off. */
  readonly proxyCache?: { readonly host: string; readonly port: number; readonly db: number } | undefined;
}

/**
 * The rc overrides (`ALS_A__B`) over the original's own config/default.json that both the original and ours
 * (drop-in) run with in a parity run: the same file, the same variables. The file's proxy cache (a Redis
 * Cluster) is turned off, but for the inter-scheme corpus: there it is one Redis (the project's is one node),
 * at a database of the run's own.
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
    ...(o.proxyCache
      ? {
          ALS_PROXY_CACHE__enabled: 'true',
          ALS_PROXY_CACHE__type: 'redis',
          ALS_PROXY_CACHE__proxyConfig__host: o.proxyCache.host,
          ALS_PROXY_CACHE__proxyConfig__port: String(o.proxyCache.port),
          ALS_PROXY_CACHE__proxyConfig__db: String(o.proxyCache.db),
        }
      : { ALS_PROXY_CACHE__enabled: 'false' }),
  };
}
