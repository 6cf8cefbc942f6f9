import type { ErrorInformation } from '@mojafast/fspiop';
import fastJson, { type ObjectSchema } from 'fast-json-stringify';
import type { BatchParty, BatchResultEntry, ParticipantPartyList } from './bodies.js';

const errorInformation: ObjectSchema = {
  type: 'object',
  properties: {
    errorCode: { type: 'string' },
    errorDescription: { type: 'string' },
    extensionList: {
      type: 'object',
      properties: {
        extension: {
          type: 'array',
          items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } },
        },
      },
    },
  },
  required: ['errorCode', 'errorDescription'],
};

const partyIdInfo: ObjectSchema = {
  type: 'object',
  properties: {
    partyIdType: { type: 'string' },
    partyIdentifier: { type: 'string' },
    partySubIdOrType: { type: 'string' },
    fspId: { type: 'string' },
    // The original adds the batch's currency to each entry it sends to the oracle.
    currency: { type: 'string' },
  },
};

/** The JSON schema of an error answer, shared by fastify replies and error callbacks. */
export const errorBodySchema: ObjectSchema = {
  type: 'object',
  properties: { errorInformation },
  required: ['errorInformation'],
};

export interface Serialisers {
  error(information: ErrorInformation): string;
  fspId(fspId: string): string;
  partyList(body: ParticipantPartyList): string;
  batchRequest(body: { requestId: string; partyList: readonly BatchParty[]; currency?: string }): string;
  batchResult(body: { partyList: readonly BatchResultEntry[]; currency?: string }): string;
}

/**
 * Bodies the ALS writes itself, serialised by functions compiled once from their schemas (fastify's
 * fast-json-stringify), not JSON.stringify per request.
 */
export function createSerialisers(): Serialisers {
  const errorBody = fastJson(errorBodySchema);
  const fspIdBody = fastJson({ type: 'object', properties: { fspId: { type: 'string' } } });
  const partyListBody = fastJson({
    type: 'object',
    properties: {
      partyList: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            partyIdType: { type: 'string' },
            partyIdentifier: { type: 'string' },
            fspId: { type: 'string' },
            partySubIdOrType: { type: 'string' },
          },
        },
      },
      currency: { type: 'string' },
    },
  });
  const batchRequest = fastJson({
    type: 'object',
    properties: {
      requestId: { type: 'string' },
      partyList: { type: 'array', items: partyIdInfo },
      currency: { type: 'string' },
    },
  });
  return {
    error: (information) => errorBody({ errorInformation: information }),
    fspId: (fspId) => fspIdBody({ fspId }),
    partyList: (body) => partyListBody(body),
    batchRequest: (body) => batchRequest(body),
    // The oracle's entries are passed on exactly as it answered them (the original forwards its partyList):
    // any shape, so no schema. A batch is rare; its answer is serialised once.
    batchResult: (body) => JSON.stringify(body),
  };
}
