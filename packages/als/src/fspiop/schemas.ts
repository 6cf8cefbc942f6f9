import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AlsError } from './errors.js';
import generated from './fspiop-schemas.generated.json' with { type: 'json' };
import isoGenerated from './iso20022-schemas.generated.json' with { type: 'json' };
import type { FspiopVersion } from './versions.js';

/**
 * The request bodies the ALS accepts, by their schema names in the FSPIOP API definitions; the same list as
 * scripts/fspiop-schemas.ts extracts (test/fspiop-schemas.unit.test.ts checks they agree).
 */
export const bodySchemaNames = [
  'PartiesTypeIDPutResponse',
  'ErrorInformationObject',
  'ParticipantsTypeIDSubIDPostRequest',
  'ParticipantsTypeIDPutResponse',
  'ParticipantsPostRequest',
  'ParticipantsIDPutResponse',
] as const;

export type BodySchemaName = (typeof bodySchemaNames)[number];

/**
 * The ISO 20022 bodies of PUT /parties (API_TYPE=iso20022), by their names in account-lookup-service's own
 * ISO schema file; the same list as scripts/iso20022-schemas.ts extracts.
 */
export const isoBodySchemaNames = [
  'GetParties_IdentificationVerificationReportV03',
  'GetPartiesError_IdentificationVerificationReportV03',
] as const;

export type IsoBodySchemaName = (typeof isoBodySchemaNames)[number];

/** The ISO schema document's components, as scripts/iso20022-schemas.ts writes them. */
export interface IsoSchemaSource {
  readonly components: { readonly schemas: Record<string, unknown> };
}

export const shippedIsoSchemas: IsoSchemaSource = isoGenerated as IsoSchemaSource;

export interface FspiopSchemas {
  /**
   * Throws an AlsError (3102 missing, 3101 malformed, 3100 otherwise) when the body does not conform. An ISO
   * body has one schema whatever the version (loaded with `iso20022` only).
   */
  validate(version: FspiopVersion, name: BodySchemaName | IsoBodySchemaName, body: unknown): void;
  /** PartyIdType values of a version (the path's {Type}). */
  readonly partyIdTypes: Readonly<Record<FspiopVersion, ReadonlySet<string>>>;
  /** The API's Currency enum (ISO 4217 codes), for a `?currency=` query. */
  readonly currencies: ReadonlySet<string>;
}

/**
 * The schema documents, in the shapes api-snippets gives them: v1.1's OpenAPI components (schemas
 * referenced in place by `#/components/...`), v2.0's self-contained JSON schemas by name.
 */
export interface FspiopSchemaSource {
  readonly 'v1.1': { readonly components: { readonly schemas: Record<string, { enum?: string[] }> } };
  readonly '2.0': Record<string, { enum?: string[] } | undefined>;
}

/**
 * The schemas this package ships: extracted at build time from @mojaloop/api-snippets by
 * scripts/fspiop-schemas.ts (the named bodies, the components they reference, the enums below), so the
 * runtime needs no api-snippets and no schema is copied by hand.
 */
export const shippedSchemas: FspiopSchemaSource = generated as FspiopSchemaSource;

/** Compiles the FSPIOP body schemas once, at start-up; the ISO 20022 ones too when given. */
export function loadFspiopSchemas(
  source: FspiopSchemaSource = shippedSchemas,
  options: { iso20022?: IsoSchemaSource } = {},
): FspiopSchemas {
  // OpenAPI 3.0 keywords ajv does not know (example, externalDocs) are annotations: strict off. Types are
  // coerced as the original's validator does (central-services-shared openapiBackend.js, coerceTypes): a
  // number where a string is defined passes (an errorCode of 5100), and the body is forwarded as received.
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true, coerceTypes: true });
  addFormats.default(ajv);

  const v11 = source['v1.1'];
  ajv.addSchema({ components: v11.components }, 'fspiop-v1.1');
  const v20 = source['2.0'];

  // The original judges the bodies of every version by its one API document (account-lookup-service's
  // api-swagger.yaml, the v1.1 definitions here): a 2.0 body with a property the v2.0 definitions forbid (a
  // PUT /participants with its `currency`) is taken by it, so by ours too.
  const validators = new Map<string, ValidateFunction>();
  for (const name of bodySchemaNames) {
    const validator = ajv.compile({ $ref: `fspiop-v1.1#/components/schemas/${name}` });
    validators.set(`1.1:${name}`, validator);
    validators.set(`2.0:${name}`, validator);
  }
  if (options.iso20022) {
    ajv.addSchema({ components: options.iso20022.components }, 'iso20022');
    for (const name of isoBodySchemaNames) {
      const validator = ajv.compile({ $ref: `iso20022#/components/schemas/${name}` });
      validators.set(`1.1:${name}`, validator);
      validators.set(`2.0:${name}`, validator);
    }
  }
  const partyIdTypes = {
    '1.1': new Set(v11.components.schemas.PartyIdType?.enum ?? []),
    '2.0': new Set(v20.PartyIdType?.enum ?? []),
  };

  const currencies = new Set(v11.components.schemas.Currency?.enum ?? []);
  if (currencies.size === 0) throw new Error('FSPIOP v1.1 schemas have no Currency enum');

  return {
    partyIdTypes,
    currencies,
    validate(version, name, body) {
      const validator = validators.get(`${version}:${name}`);
      if (validator === undefined) throw new Error(`no schema ${name} loaded`);
      if (validator(body)) return;
      throw toAlsError(validator.errors?.[0]);
    },
  };
}

/**
 * Maps the first schema violation to the original's error (central-services-error-handling
 * createFSPIOPErrorFromOpenapiError over openapi-backend, which validates the body as `requestBody`):
 * required 3102, additionalProperties 3103, type 3101, anything else 3100; the text is the instance path under
 * `/requestBody` and ajv's message.
 */
function toAlsError(error: ErrorObject | undefined): AlsError {
  const path = `/requestBody${error?.instancePath ?? ''}`;
  const reason = error?.message ?? 'is invalid';
  switch (error?.keyword) {
    case 'required':
      return new AlsError('BODY_MISSING_ELEMENT', { path, reason });
    case 'additionalProperties':
      return new AlsError('BODY_TOO_MANY_ELEMENTS', { path, reason });
    case 'type':
      return new AlsError('BODY_MALFORMED_ELEMENT', { path, reason });
    default:
      return new AlsError('BODY_INVALID', { path, reason });
  }
}
