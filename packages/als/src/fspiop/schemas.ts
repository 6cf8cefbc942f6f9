import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { AlsError } from './errors.js';
import type { FspiopVersion } from './versions.js';

/** The request bodies the ALS accepts, by their schema names in the FSPIOP API definitions. */
export const bodySchemaNames = [
  'PartiesTypeIDPutResponse',
  'ErrorInformationObject',
  'ParticipantsTypeIDSubIDPostRequest',
  'ParticipantsTypeIDPutResponse',
  'ParticipantsPostRequest',
] as const;

export type BodySchemaName = (typeof bodySchemaNames)[number];

export interface FspiopSchemas {
  /** Throws an AlsError (3102 missing, 3101 malformed, 3100 otherwise) when the body does not conform. */
  validate(version: FspiopVersion, name: BodySchemaName, body: unknown): void;
  /** PartyIdType values of a version (the path's {Type}). */
  readonly partyIdTypes: Readonly<Record<FspiopVersion, ReadonlySet<string>>>;
  /** The API's Currency enum (ISO 4217 codes), for a `?currency=` query. */
  readonly currencies: ReadonlySet<string>;
}

function snippetsDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@mojaloop/api-snippets/package.json'));
}

/**
 * Compiles the FSPIOP body schemas once, at start-up, from @mojaloop/api-snippets: v2.0 from its
 * generated JSON schemas, v1.1 from the OpenAPI document (components/schemas referenced in place), so no
 * schema is copied by hand (issue #3).
 */
export function loadFspiopSchemas(): FspiopSchemas {
  const dir = snippetsDir();
  // OpenAPI 3.0 keywords ajv does not know (example, externalDocs) are annotations: strict off.
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);

  const v11 = parseYaml(readFileSync(join(dir, 'docs/fspiop-rest-v1.1-openapi3-snippets.yaml'), 'utf8')) as {
    components: { schemas: Record<string, { enum?: string[] }> };
  };
  ajv.addSchema({ components: v11.components }, 'fspiop-v1.1');
  const v20 = JSON.parse(readFileSync(join(dir, 'lib/fspiop/v2_0/json-schemas.json'), 'utf8')) as Record<
    string,
    { enum?: string[] }
  >;

  const validators = new Map<string, ValidateFunction>();
  for (const name of bodySchemaNames) {
    validators.set(`1.1:${name}`, ajv.compile({ $ref: `fspiop-v1.1#/components/schemas/${name}` }));
    const schema = v20[name];
    if (!schema) throw new Error(`@mojaloop/api-snippets v2.0 has no schema ${name}`);
    validators.set(`2.0:${name}`, ajv.compile(schema));
  }
  const partyIdTypes = {
    '1.1': new Set(v11.components.schemas.PartyIdType?.enum ?? []),
    '2.0': new Set(v20.PartyIdType?.enum ?? []),
  };

  const currencies = new Set(v11.components.schemas.Currency?.enum ?? []);
  if (currencies.size === 0) throw new Error('@mojaloop/api-snippets v1.1 has no Currency enum');

  return {
    partyIdTypes,
    currencies,
    validate(version, name, body) {
      const validator = validators.get(`${version}:${name}`) as ValidateFunction;
      if (validator(body)) return;
      throw toAlsError(validator.errors?.[0]);
    },
  };
}

/** Maps the first schema violation to the FSPIOP code the original's validation would give. */
function toAlsError(error: ErrorObject | undefined): AlsError {
  if (!error) return new AlsError('BODY_INVALID', { path: '/body', reason: 'is invalid' });
  const path = `/body${error.instancePath}`;
  switch (error.keyword) {
    case 'required':
      return new AlsError('BODY_MISSING_ELEMENT', {
        path: `${path}/${(error.params as { missingProperty: string }).missingProperty}`,
      });
    case 'pattern':
    case 'format':
    case 'type':
    case 'minLength':
    case 'maxLength':
      return new AlsError('BODY_MALFORMED_ELEMENT', { path, reason: error.message ?? 'is malformed' });
    default:
      return new AlsError('BODY_INVALID', { path, reason: error.message ?? 'is invalid' });
  }
}
