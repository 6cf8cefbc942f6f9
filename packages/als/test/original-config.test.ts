import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaults } from '../src/config/config.js';
import { readConfig } from '../src/config/original.js';

// account-lookup-service's own config/default.json (mirror commit 5da8a0b7), kept as a fixture of its keys.
const original = fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url));
const absent = fileURLToPath(new URL('./fixtures/absent.json', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe("account-lookup-service's configuration", () => {
  it('reads its default.json unchanged into our settings', () => {
    const { config, file, notHonoured } = readConfig({ CONFIG_FILE: original });
    expect(file).toBe(original);
    expect(config).toEqual({
      ...defaults,
      port: 4002,
      adminPort: 4001,
      hubName: 'Hub',
      switchEndpoint: 'http://localhost:3001',
      dbHost: 'localhost',
      dbPort: 3306,
      dbUser: 'account_lookup',
      dbPassword: 'password',
      dbName: 'account_lookup',
      hubFspiopVersion: '2.0',
      participantCacheTtlMs: 3000,
      endpointCacheTtlMs: 180000,
      oracleRegistryCacheTtlMs: 0,
      extendedPartyIdTypes: 'off',
      deleteParticipantValidation: 'off',
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(notHonoured).toContain('DATABASE.POOL_MAX_SIZE');
    expect(notHonoured).toContain('ENDPOINT_SECURITY.JWS.JWS_SIGN');
    expect(notHonoured).toContain('RUN_MIGRATIONS');
    expect(notHonoured).not.toContain('HANDLERS.MONITORING_PORT');
    expect(notHonoured).not.toContain('API_PORT');
  });

  it('lays defaults < file < ALS_ rc overrides < our ALS_ variables', () => {
    const { config, notHonoured } = readConfig({
      CONFIG_FILE: original,
      ALS_DATABASE__HOST: 'mysql-als',
      ALS_API_PORT: '4102',
      ALS_FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE: 'true',
      ALS_DB_PORT: '3307', // ours, not an rc override of a DB_PORT key
    });
    expect(config.dbHost).toBe('mysql-als');
    expect(config.port).toBe(4102);
    expect(config.extendedPartyIdTypes).toBe('on');
    expect(config.dbPort).toBe(3307);
    expect(notHonoured).not.toContain('DB_PORT');
    expect(readConfig({ CONFIG_FILE: original, ALS_API_PORT: '4102', ALS_PORT: '4202' }).config.port).toBe(4202);
  });

  it('keeps our defaults when there is no file and no override', () => {
    expect(readConfig({}, { defaultFile: absent }).config).toEqual(defaults);
  });

  it.each([
    ['ALS_API_PORT', { ALS_API_PORT: 'http' }],
    ['ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT', { ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT: '1.0' }],
    ['ALS_API_TYPE', { ALS_API_TYPE: 'iso20022' }],
    ['ALS_SWITCH_ENDPOINT', { ALS_SWITCH_ENDPOINT: 'ftp://ledger' }],
    ['ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED', { ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED: 'maybe' }],
  ])('a bad value stops the start naming its key: %s', (key, env) => {
    expect(() => readConfig({ CONFIG_FILE: original, ...env })).toThrow(new RegExp(`^${key}: `));
  });

  it('names CONFIG_FILE when it cannot be read', () => {
    expect(() => readConfig({ CONFIG_FILE: absent })).toThrow(/^CONFIG_FILE: /);
  });

  it('has every mapped key in the README table', () => {
    for (const key of [
      'API_PORT',
      'ADMIN_PORT',
      'HUB_PARTICIPANT.NAME',
      'SWITCH_ENDPOINT',
      'DATABASE.HOST',
      'DATABASE.DATABASE',
      'PROTOCOL_VERSIONS.CONTENT.DEFAULT',
      'CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG.expiresIn',
      'CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG.expiresIn',
      'GENERAL_CACHE_CONFIG.EXPIRES_IN_MS',
      'FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE',
      'DELETE_PARTICIPANT_VALIDATION_ENABLED',
    ]) {
      expect(readme).toContain(`${key}\` |`);
    }
  });
});
