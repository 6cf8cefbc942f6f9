import { asText, keyName, leaves, readOriginalSource, valueAt } from '@mojafast/service-kit';
import { type Config, ConfigError, type ConfigValues, loadConfig, settings } from './config.js';

/** Where account-lookup-service's image has its config file (its Dockerfile: WORKDIR /opt/app, COPY config). */
export const ALS_CONFIG_FILE = '/opt/app/config/default.json';
/** Its rc app name: `rc('ALS', …)` in src/lib/config.js, so overrides are ALS_A__B. */
export const ALS_RC_APP = 'ALS';

export interface LoadedConfig {
  readonly config: Config;
  readonly file: string | undefined;
  /** Keys of the original's file (or ALS_ rc variables) we cannot honour: named once at start. */
  readonly notHonoured: readonly string[];
}

/**
 * Keys only other processes of account-lookup-service read (its timeout handler: `HANDLERS`, with its own
 * monitoring port): they are not this process's, so they are not reported.
 */
const otherProcessKeys: readonly string[][] = [['HANDLERS']];

const bool = (value: unknown, key: string): 'on' | 'off' => {
  const text = asText(value);
  if (text === 'true') return 'on';
  if (text === 'false') return 'off';
  throw new ConfigError(key, `must be true or false, got "${text}"`);
};

/**
 * The settings, in this order: our defaults < account-lookup-service's config file (CONFIG_FILE, else the
 * path of its image) < its rc overrides (ALS_A__B; our own ALS_… variables excepted) < our variables <
 * `overrides`. A bad value throws ConfigError naming the key it came from.
 */
export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { defaultFile?: string; overrides?: Partial<ConfigValues> } = {},
): LoadedConfig {
  const ours = new Set(settings.map((s) => s.env));
  const source = readOriginalSource(ALS_RC_APP, env, options.defaultFile ?? ALS_CONFIG_FILE, ours);
  const tree = source.tree;
  const fromFile: Record<string, string> = {};
  const used = new Set<string>();
  const notHonoured: string[] = [];
  if (tree !== undefined) {
    const seen = (path: readonly string[]) => used.add(path.join('\u0000'));
    const take = (
      key: keyof ConfigValues,
      path: string[],
      convert: (value: unknown, name: string) => string = (v) => asText(v),
    ) => {
      const value = valueAt(tree, path);
      if (value === undefined) return;
      seen(path);
      const name = keyName(source, path);
      const text = convert(value, name);
      const setting = settings.find((s) => s.key === key);
      if (!setting) return;
      // Validated by our own parser, the error renamed to the original's key.
      try {
        loadConfig({ [setting.env]: text });
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(name, error.message.slice(setting.env.length + 2));
        throw error;
      }
      fromFile[setting.env] = text;
    };
    const accept = (path: string[], ok: (text: string) => boolean, detail: string) => {
      const value = valueAt(tree, path);
      if (value === undefined) return;
      seen(path);
      if (!ok(asText(value))) throw new ConfigError(keyName(source, path), `${detail}, got "${asText(value)}"`);
    };

    take('port', ['API_PORT']);
    take('adminPort', ['ADMIN_PORT']);
    take('hubName', ['HUB_PARTICIPANT', 'NAME']);
    take('switchEndpoint', ['SWITCH_ENDPOINT']);
    accept(['API_TYPE'], (t) => t === 'fspiop', 'must be fspiop (the ISO 20022 API is not served)');
    accept(['DATABASE', 'DIALECT'], (t) => t === 'mysql' || t === 'mysql2', 'must be mysql or mysql2');
    take('dbHost', ['DATABASE', 'HOST'], (v) => asText(v).replace(/\/$/, ''));
    take('dbPort', ['DATABASE', 'PORT']);
    take('dbUser', ['DATABASE', 'USER']);
    take('dbPassword', ['DATABASE', 'PASSWORD']);
    // The original keeps its oracle registry in this database: naming it selects the database registry.
    take('dbName', ['DATABASE', 'DATABASE']);
    take('hubFspiopVersion', ['PROTOCOL_VERSIONS', 'CONTENT', 'DEFAULT']);
    take('participantCacheTtlMs', ['CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG', 'expiresIn']);
    take('endpointCacheTtlMs', ['CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG', 'expiresIn']);
    // GENERAL_CACHE_CONFIG caches the oracle registry (oracleEndpointCached); disabled, it is read each time.
    const general = ['GENERAL_CACHE_CONFIG'];
    if (valueAt(tree, [...general, 'CACHE_ENABLED']) !== undefined) {
      const enabled = bool(
        valueAt(tree, [...general, 'CACHE_ENABLED']),
        keyName(source, [...general, 'CACHE_ENABLED']),
      );
      seen([...general, 'CACHE_ENABLED']);
      if (enabled === 'on') take('oracleRegistryCacheTtlMs', [...general, 'EXPIRES_IN_MS']);
      else {
        seen([...general, 'EXPIRES_IN_MS']);
        fromFile.ALS_ORACLE_REGISTRY_CACHE_TTL_MS = '0';
      }
    }
    take('extendedPartyIdTypes', ['FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE'], bool);
    take('deleteParticipantValidation', ['DELETE_PARTICIPANT_VALIDATION_ENABLED'], bool);

    for (const [path] of leaves(tree)) {
      if (used.has(path.join('\u0000'))) continue;
      if (otherProcessKeys.some((prefix) => prefix.every((part, i) => path[i] === part))) continue;
      notHonoured.push(keyName(source, path));
    }
  }
  // Our variables (and test overrides) win over the file: they are laid over its values.
  const config = loadConfig({ ...fromFile, ...env }, options.overrides);
  return { config, file: source.file, notHonoured: Object.freeze(notHonoured) };
}
