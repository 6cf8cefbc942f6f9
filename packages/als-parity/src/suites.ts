import type { Case } from './case.js';
import { corpus } from './corpus.js';
import { addInterSchemeProxies, INTER_SCHEME_ENV, interSchemeCorpus } from './corpus-inter-scheme.js';
import { isoCorpus } from './corpus-iso.js';
import type { RecordingSims } from './sims.js';

/**
 * A corpus with the settings it is recorded and compared under: the API type, whether the proxy cache (a Redis
 * database of the run's own) and the timeout handler are on, and the fixture the original's answers are in.
 */
export interface Suite {
  readonly name: SuiteName;
  readonly cases: readonly Case[];
  readonly fixture: URL;
  /** Settings both ALSs run with, beyond src/env.ts's. */
  readonly env: Readonly<Record<string, string>>;
  /** The proxy cache on, in a Redis database of the run's own (src/redis-db.ts). */
  readonly proxyCache: boolean;
  /** What central-ledger knows for the whole run (the proxies). */
  prepare(sims: RecordingSims): void;
}

export type SuiteName = 'fspiop' | 'iso20022' | 'inter-scheme';

const fixture = (file: string) => new URL(`../fixtures/${file}`, import.meta.url);

export const suites: Readonly<Record<SuiteName, Suite>> = {
  fspiop: {
    name: 'fspiop',
    cases: corpus,
    fixture: fixture('original-17.16.1.json'),
    env: {},
    proxyCache: false,
    prepare() {},
  },
  iso20022: {
    name: 'iso20022',
    cases: isoCorpus,
    fixture: fixture('original-17.16.1-iso20022.json'),
    env: { ALS_API_TYPE: 'iso20022' },
    proxyCache: false,
    prepare() {},
  },
  'inter-scheme': {
    name: 'inter-scheme',
    cases: interSchemeCorpus,
    fixture: fixture('original-17.16.1-iso20022-inter-scheme.json'),
    env: INTER_SCHEME_ENV,
    proxyCache: true,
    prepare: addInterSchemeProxies,
  },
};
