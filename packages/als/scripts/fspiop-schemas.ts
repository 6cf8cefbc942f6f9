// Extracts the FSPIOP schemas the ALS validates with from @mojaloop/api-snippets into
// src/fspiop/fspiop-schemas.generated.json, so the service ships a few kB of schemas instead of the 57 MB
// package (the image stays small). The file is committed; `pnpm --filter @mojafast/als run schemas` rewrites it
// (after an api-snippets upgrade or a new body schema), and test/fspiop-schemas.unit.test.ts fails while it
// differs from what this script would write.
//
//   node packages/als/scripts/fspiop-schemas.ts           rewrite the file
//   node packages/als/scripts/fspiop-schemas.ts --check   exit 1 if the file is stale
//
// Node runs this file as it is (type stripping): it uses erasable syntax only and imports its local module by
// its .ts name.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { refsIn, sortedByName, writeOrCheck } from './generated-json.ts';

/** The request bodies the ALS validates; the same list as bodySchemaNames in src/fspiop/schemas.ts. */
export const bodySchemaNames: readonly string[] = [
  'PartiesTypeIDPutResponse',
  'ErrorInformationObject',
  'ParticipantsTypeIDSubIDPostRequest',
  'ParticipantsTypeIDPutResponse',
  'ParticipantsPostRequest',
  'ParticipantsIDPutResponse',
];

/** Enums the ALS reads besides the bodies: the path's {Type} (both versions) and `?currency=` (v1.1). */
const v11Enums = ['PartyIdType', 'Currency'];
const v20Enums = ['PartyIdType'];

const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const generatedFile = join(packageDir, 'src/fspiop/fspiop-schemas.generated.json');

function snippetsDir(): string {
  const require = createRequire(join(packageDir, 'package.json'));
  return dirname(require.resolve('@mojaloop/api-snippets/package.json'));
}

type Schema = { enum?: string[] };
type Components = Record<string, Record<string, Schema>>;

/** The api-snippets documents the schemas come from. */
export interface Snippets {
  /** `@mojaloop/api-snippets@<version>` */
  readonly source: string;
  /** v1.1's OpenAPI document's components (schemas reference each other by `#/components/...`). */
  readonly v11Components: Components & { schemas: Record<string, Schema> };
  /** v2.0's generated JSON schemas by name. */
  readonly v20Schemas: Record<string, Schema>;
}

/** The file's content: where it comes from, the bodies it serves, the schemas in api-snippets' shapes. */
export interface ExtractedSchemas {
  readonly source: string;
  readonly bodySchemas: string[];
  readonly 'v1.1': { readonly components: Components };
  readonly '2.0': Record<string, Schema>;
}

/** The api-snippets documents the schemas come from: v1.1's OpenAPI yaml, v2.0's generated JSON schemas. */
export function readSnippets(dir = snippetsDir()): Snippets {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const v11 = parseYaml(readFileSync(join(dir, 'docs/fspiop-rest-v1.1-openapi3-snippets.yaml'), 'utf8')) as {
    components: Snippets['v11Components'];
  };
  const v20 = JSON.parse(readFileSync(join(dir, 'lib/fspiop/v2_0/json-schemas.json'), 'utf8')) as Record<
    string,
    Schema
  >;
  return { source: `@mojaloop/api-snippets@${version}`, v11Components: v11.components, v20Schemas: v20 };
}

const unescapePointer = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * The named v1.1 component schemas and every component they reference, transitively, in the document's
 * own shape ({ schemas: { … } }), so a `#/components/…` reference resolves exactly as in the full document.
 */
function v11Closure(components: Components, names: readonly string[]): Components {
  const picked: Components = {};
  const pending: [string, string][] = names.map((name) => ['schemas', name]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [section, name] = next;
    if (picked[section]?.[name] !== undefined) continue;
    const schema = components[section]?.[name];
    if (schema === undefined) throw new Error(`api-snippets v1.1 has no components/${section}/${name}`);
    picked[section] = { ...picked[section], [name]: schema };
    for (const ref of refsIn(schema)) {
      const match = /^#\/components\/([^/]+)\/([^/]+)/.exec(ref);
      if (!match) throw new Error(`api-snippets v1.1 ${section}/${name}: unexpected $ref ${ref}`);
      pending.push([unescapePointer(match[1] ?? ''), unescapePointer(match[2] ?? '')]);
    }
  }
  return Object.fromEntries(
    Object.entries(sortedByName(picked)).map(([section, schemas]) => [section, sortedByName(schemas)]),
  );
}

/** v2.0's schemas are self-contained (no $ref); the named ones are copied as they are. */
function v20Pick(schemas: Record<string, Schema>, names: readonly string[]): Record<string, Schema> {
  const picked: Record<string, Schema> = {};
  for (const name of [...names].sort()) {
    const schema = schemas[name];
    if (schema === undefined) throw new Error(`api-snippets v2.0 has no schema ${name}`);
    if (refsIn(schema).length > 0) throw new Error(`api-snippets v2.0 ${name} has a $ref; extract its target too`);
    picked[name] = schema;
  }
  return picked;
}

/**
 * Where account-lookup-service v17.16.1 judges bodies otherwise than api-snippets does. It validates every
 * version against its own OpenAPI document (src/interface/api-swagger.yaml), which, compared schema by
 * schema over the closure of the bodies above, differs from api-snippets in three facts only: a requestId
 * may be a UUID of versions 1-7 or a ULID; a batch lists `partyList` first among its required properties (so
 * a body missing both is said to miss partyList); a partyIdentifier holds no white space and no braces.
 * A drop-in ALS must refuse and accept the same bodies with the same words, so those facts are applied here.
 */
const originalCorrelationId =
  '^[0-9a-f]{8}-[0-9a-f]{4}-[1-7][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$|^[0-9A-HJKMNP-TV-Z]{26}$';
const originalBatchRequired = ['partyList', 'requestId'];
const originalPartyIdentifier = '^[^\\s{}]+$';

type Loose = Record<string, unknown>;
const clone = <T>(value: T): T => structuredClone(value);

/** Every schema under `value` whose title is `title` (v2.0's schemas inline what v1.1 references). */
function withTitle(value: unknown, title: string, out: Loose[] = []): Loose[] {
  if (Array.isArray(value)) for (const item of value) withTitle(item, title, out);
  else if (value && typeof value === 'object') {
    if ((value as Loose).title === title) out.push(value as Loose);
    for (const child of Object.values(value)) withTitle(child, title, out);
  }
  return out;
}

export function alignWithOriginal<
  T extends { readonly 'v1.1': { readonly components: unknown }; readonly '2.0': unknown },
>(content: T): T {
  const aligned = clone(content);
  const documents = [aligned['v1.1'].components, aligned['2.0']];
  for (const document of documents) {
    for (const schema of withTitle(document, 'CorrelationId')) schema.pattern = originalCorrelationId;
    for (const schema of withTitle(document, 'ParticipantsPostRequest')) schema.required = [...originalBatchRequired];
    for (const schema of withTitle(document, 'PartyIdentifier')) schema.pattern = originalPartyIdentifier;
  }
  return aligned;
}

/** The content of the generated file for these documents and body schema names. */
export function extractFspiopSchemas(snippets: Snippets, names: readonly string[] = bodySchemaNames): ExtractedSchemas {
  return alignWithOriginal({
    source: `${snippets.source}, aligned with account-lookup-service v17.16.1's api-swagger.yaml`,
    bodySchemas: [...names],
    'v1.1': { components: v11Closure(snippets.v11Components, [...names, ...v11Enums]) },
    '2.0': v20Pick(snippets.v20Schemas, [...names, ...v20Enums]),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const content = extractFspiopSchemas(readSnippets());
  writeOrCheck(generatedFile, content, 'pnpm --filter @mojafast/als run schemas', content.source);
}
