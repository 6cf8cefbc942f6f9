import { readFileSync, writeFileSync } from 'node:fs';
import type { CaseRecord } from './normalise.js';

/** Where and how a fixture was recorded. */
export interface Provenance {
  readonly service: string;
  readonly version: string;
  readonly tag: string;
  readonly commit: string;
  readonly date: string;
  readonly command: string;
  readonly node: string;
  readonly durationMs: number;
  /** The original's API_TYPE (absent: fspiop). */
  readonly apiType?: ApiType;
  /** The proxy cache on (a Redis of the run's own) with the timeout handler, under these settings. */
  readonly proxyCache?: boolean;
  readonly settings?: Readonly<Record<string, string>>;
}

export interface Fixture {
  readonly provenance: Provenance;
  /** Requests no case could be attributed, as recorded (informational: not compared). */
  readonly unattributed: readonly string[];
  readonly cases: readonly CaseRecord[];
}

/** The recorded original: account-lookup-service v17.16.1. */
export const originalFixture = new URL('../fixtures/original-17.16.1.json', import.meta.url);

/** The same original run with API_TYPE=iso20022, answering the ISO corpus. */
export const originalIsoFixture = new URL('../fixtures/original-17.16.1-iso20022.json', import.meta.url);

export type ApiType = 'fspiop' | 'iso20022';

export const ORIGINAL = {
  service: 'account-lookup-service',
  version: '17.16.1',
  tag: 'v17.16.1',
  commit: '97d195ae4f4b2515eeadc18d2021fad7614ef7be',
} as const;

export function readFixture(file: URL | string = originalFixture): Fixture {
  return JSON.parse(readFileSync(file, 'utf8')) as Fixture;
}

/** One case per line block, keys in a stable order, so a re-recording diffs case by case. */
export function writeFixture(file: URL | string, fixture: Fixture): void {
  writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
}
