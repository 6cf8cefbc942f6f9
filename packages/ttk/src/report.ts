import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One collection file: a toolkit template (name, test_cases) as its UI saves it. */
export interface Collection {
  readonly file: string;
  readonly template: { readonly name: string; readonly test_cases: readonly unknown[] };
}

export const collectionsDir = fileURLToPath(new URL('../collections', import.meta.url));

/**
 * The ISO 20022 run (an ALS with API_TYPE=iso20022): the oracle-admin collection (the admin API has no ISO
 * form), then the collections of collections/iso20022, which the toolkit runs through its fspiopToISO20022
 * transformer (the template's `options.transformerName`), as Mojaloop's ISO golden path does.
 */
export function readIsoCollections(): Collection[] {
  const admin = readCollections().filter((c) => c.file.startsWith('01-'));
  const iso = readCollections(join(collectionsDir, 'iso20022')).map((c) => ({ ...c, file: `iso20022/${c.file}` }));
  return [...admin, ...iso];
}

/** The collections of this package, in file-name order (the order they are meant to run in). */
export function readCollections(dir = collectionsDir): Collection[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => ({ file, template: JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

export interface AssertionFailure {
  readonly testCase: string;
  readonly request: string;
  readonly assertion: string;
  readonly message: string;
}

export interface RunReport {
  readonly file: string;
  readonly assertions: number;
  readonly passed: number;
  readonly failures: readonly AssertionFailure[];
}

interface ReportAssertion {
  id: string;
  description?: string;
  resultStatus?: { status?: string; message?: string };
}
interface ReportRequest {
  request?: { description?: string; method?: string; path?: string; tests?: { assertions?: ReportAssertion[] } };
  status?: string;
  additionalInfo?: unknown;
}
interface Report {
  test_cases?: { name?: string; requests?: ReportRequest[] }[];
}

/**
 * The toolkit's final report (outbound-initiator generateFinalReport) as counts and the failed assertions.
 * An assertion without a result (its request was never answered) counts as failed, with the request's
 * error as the message.
 */
export function readReport(file: string, report: Report): RunReport {
  const failures: AssertionFailure[] = [];
  let assertions = 0;
  for (const testCase of report.test_cases ?? []) {
    for (const item of testCase.requests ?? []) {
      const request = item.request ?? {};
      const name = request.description ?? `${request.method} ${request.path}`;
      for (const assertion of request.tests?.assertions ?? []) {
        assertions++;
        if (assertion.resultStatus?.status === 'SUCCESS') continue;
        failures.push({
          testCase: testCase.name ?? '',
          request: name,
          assertion: assertion.description ?? assertion.id,
          message:
            assertion.resultStatus?.message ??
            `no result (${item.status ?? 'not run'}${item.additionalInfo ? `: ${JSON.stringify(item.additionalInfo).slice(0, 300)}` : ''})`,
        });
      }
    }
  }
  return { file, assertions, passed: assertions - failures.length, failures };
}

/** One line per failure, for a test's message or the CLI's output. */
export function describeFailures(report: RunReport): string {
  return report.failures
    .map((f) => `${report.file} › ${f.testCase} › ${f.request} › ${f.assertion}: ${f.message}`)
    .join('\n');
}
