import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  alignWithOriginal,
  bodySchemaNames as extractedNames,
  extractFspiopSchemas,
  generatedFile,
  readSnippets,
} from '../scripts/fspiop-schemas.js';
import {
  type BodySchemaName,
  bodySchemaNames,
  type FspiopSchemaSource,
  type FspiopSchemas,
  loadFspiopSchemas,
} from '../src/fspiop/schemas.js';
import type { FspiopVersion } from '../src/fspiop/versions.js';

// The ALS ships the FSPIOP schemas it validates with as a generated file (src/fspiop/fspiop-schemas.generated.json,
// written by scripts/fspiop-schemas.ts from @mojaloop/api-snippets, a devDependency). These tests fail when
// that file is stale (api-snippets upgraded or a body schema added without regenerating) and when the
// extracted schemas answer any body differently from the full api-snippets documents, given the same
// alignment with the original's own document (the script's alignWithOriginal).

const snippets = readSnippets();
const fullSource: FspiopSchemaSource = alignWithOriginal({
  'v1.1': { components: snippets.v11Components },
  '2.0': snippets.v20Schemas,
});

describe('the generated schema file', () => {
  it('extracts the body schemas the ALS validates with', () => {
    expect(extractedNames).toEqual([...bodySchemaNames]);
  });

  it('is what the script writes from the installed api-snippets (regenerate: pnpm --filter @mojafast/als run schemas)', () => {
    const committed: unknown = JSON.parse(readFileSync(generatedFile, 'utf8'));
    expect(committed).toEqual(extractFspiopSchemas(snippets, [...bodySchemaNames]));
  });

  it('gives the same path types and currencies as api-snippets', () => {
    const shipped = loadFspiopSchemas();
    const full = loadFspiopSchemas(fullSource);
    for (const version of ['1.1', '2.0'] as const) {
      expect([...shipped.partyIdTypes[version]]).toEqual([...full.partyIdTypes[version]]);
    }
    expect([...shipped.currencies]).toEqual([...full.currencies]);
    expect(shipped.currencies.has('USD')).toBe(true);
  });
});

/** A body per schema that the v1.1 schema accepts; the mutations below are derived from it. */
const validBodies: Record<BodySchemaName, unknown> = {
  PartiesTypeIDPutResponse: {
    party: {
      partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '46730000001', fspId: 'payeefsp' },
      merchantClassificationCode: '1234',
      name: 'Ann Lee',
      personalInfo: { complexName: { firstName: 'Ann', middleName: 'B', lastName: 'Lee' }, dateOfBirth: '1980-01-02' },
    },
  },
  ErrorInformationObject: {
    errorInformation: {
      errorCode: '3204',
      errorDescription: 'Party not found',
      extensionList: { extension: [{ key: 'reason', value: 'none' }] },
    },
  },
  ParticipantsTypeIDSubIDPostRequest: { fspId: 'payeefsp', currency: 'USD' },
  ParticipantsTypeIDPutResponse: { fspId: 'payeefsp' },
  ParticipantsPostRequest: {
    requestId: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
    partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000001', partySubIdOrType: 'WALLET', fspId: 'x' }],
    currency: 'EUR',
  },
  ParticipantsIDPutResponse: {
    partyList: [{ partyId: { partyIdType: 'MSISDN', partyIdentifier: '46730000001', fspId: 'payeefsp' } }],
    currency: 'USD',
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a member of the body (objects' keys and arrays' items), depth first. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...paths(item, [...prefix, i])]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
  }
  return [];
}

/** The body with the member at path replaced (or removed when replacement is undefined). */
function mutate(body: Json, path: (string | number)[], replacement: Json | undefined): Json {
  const copy = structuredClone(body);
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path.at(-1) as string | number;
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

/**
 * Bad inputs: each member removed, or set to a number, an object, null, a bad string, an empty string or a
 * string at and past the common length limits (FspId 32, names 128, descriptions 128, ...).
 */
const replacements: (Json | undefined)[] = [
  undefined,
  42,
  { a: 1 },
  null,
  '!! not valid !!',
  ...[0, 4, 5, 32, 33, 128, 129, 300].map((n) => 'x'.repeat(n)),
];

function answer(schemas: FspiopSchemas, version: FspiopVersion, name: BodySchemaName, body: unknown): string {
  try {
    schemas.validate(version, name, body);
    return 'accepted';
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    return `${String(code)} ${message}`;
  }
}

describe('validation with the generated schemas', () => {
  const shipped = loadFspiopSchemas();
  const full = loadFspiopSchemas(fullSource);

  it.each(bodySchemaNames)('accepts the sample %s body (v1.1), so its mutations test real members', (name) => {
    expect(answer(shipped, '1.1', name, validBodies[name])).toBe('accepted');
  });

  it.each(bodySchemaNames.flatMap((name) => (['1.1', '2.0'] as const).map((version) => [name, version] as const)))(
    'answers %s v%s bodies exactly as the full api-snippets documents',
    (name, version) => {
      const valid = validBodies[name] as Json;
      const bodies: unknown[] = [valid, {}, [], 'text', null, { ...(valid as object), unknownMember: 1 }];
      for (const path of paths(valid)) for (const r of replacements) bodies.push(mutate(valid, path, r));
      const answers = bodies.map((body) => answer(shipped, version, name, body));
      expect(answers).toEqual(bodies.map((body) => answer(full, version, name, body)));
      // The mutations reach the schema: most of them are refused.
      expect(answers.filter((a) => a !== 'accepted').length).toBeGreaterThan(bodies.length / 2);
    },
  );
});
