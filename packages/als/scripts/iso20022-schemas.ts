// Extracts the ISO 20022 body schemas the ALS validates PUT /parties with in ISO 20022 mode from
// account-lookup-service v17.16.1's own schema file (src/interface/fspiop-rest-v2.0-ISO20022_parties.yaml)
// into src/fspiop/iso20022-schemas.generated.json: the two bodies and every component they reference, with the
// annotations (title, description, example) dropped. That file, not api-snippets', is the judge: it has no
// `additionalProperties: false`, so the original accepts ISO properties it does not name.
//
//   node packages/als/scripts/iso20022-schemas.ts [--from FILE]           rewrite the file
//   node packages/als/scripts/iso20022-schemas.ts [--from FILE] --check   exit 1 if the file is stale
//
// FILE defaults to the yaml of the original installed by packages/als-parity/scripts/als-original.sh
// (${MOJAFAST_CACHE_DIR:-~/.cache/mojafast}/als-original-17.16.1/app). Node runs this file as it is (type stripping).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { refsIn, sortedByName, writeOrCheck } from './generated-json.ts';

/** The ISO 20022 bodies of PUT /parties/{Type}/{ID}[/{SubId}] and of .../error. */
export const isoBodySchemaNames: readonly string[] = [
  'GetParties_IdentificationVerificationReportV03',
  'GetPartiesError_IdentificationVerificationReportV03',
];

const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const isoGeneratedFile = join(packageDir, 'src/fspiop/iso20022-schemas.generated.json');
export const originalYaml = join(
  process.env.MOJAFAST_CACHE_DIR ?? join(homedir(), '.cache/mojafast'),
  'als-original-17.16.1/app/src/interface/fspiop-rest-v2.0-ISO20022_parties.yaml',
);

type Loose = Record<string, unknown>;

export interface IsoSchemas {
  readonly source: string;
  readonly bodySchemas: string[];
  readonly components: { readonly schemas: Record<string, unknown> };
}

const annotations = new Set(['title', 'description', 'example', 'examples']);

/** A schema without its annotations; a property named like one (a `title` property) is kept. */
function stripped(value: unknown, inProperties = false): unknown {
  if (Array.isArray(value)) return value.map((item) => stripped(item));
  if (!value || typeof value !== 'object') return value;
  const out: Loose = {};
  for (const [key, child] of Object.entries(value)) {
    if (!inProperties && annotations.has(key)) continue;
    out[key] = stripped(child, !inProperties && key === 'properties');
  }
  return out;
}

/** The named schemas of the document and every schema they reference, transitively, sorted by name. */
export function extractIsoSchemas(yamlText: string, source: string): IsoSchemas {
  const document = parseYaml(yamlText) as { info?: { version?: string }; components: { schemas: Loose } };
  const all = document.components.schemas;
  const picked: Loose = {};
  const pending = [...isoBodySchemaNames];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (picked[name] !== undefined) continue;
    const schema = all[name];
    if (schema === undefined) throw new Error(`${source} has no components/schemas/${name}`);
    picked[name] = stripped(schema);
    for (const ref of refsIn(schema)) {
      const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
      if (!match) throw new Error(`${source} ${name}: unexpected $ref ${ref}`);
      pending.push(match[1] as string);
    }
  }
  return {
    source: `${source} (info.version ${document.info?.version ?? '?'})`,
    bodySchemas: [...isoBodySchemaNames],
    components: { schemas: sortedByName(picked) },
  };
}

export const sourceName = 'account-lookup-service v17.16.1 src/interface/fspiop-rest-v2.0-ISO20022_parties.yaml';

export function readOriginalYaml(file = originalYaml): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const from = process.argv.indexOf('--from');
  const file = from >= 0 ? (process.argv[from + 1] as string) : originalYaml;
  const text = readOriginalYaml(file);
  if (text === undefined) {
    process.stderr.write(`${file} not found: install the original (als-original.sh install) or pass --from FILE\n`);
    process.exit(2);
  }
  writeOrCheck(
    isoGeneratedFile,
    extractIsoSchemas(text, sourceName),
    'node packages/als/scripts/iso20022-schemas.ts',
    file,
  );
}
