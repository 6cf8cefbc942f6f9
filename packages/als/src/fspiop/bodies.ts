import type { ErrorInformation } from '@mojafast/fspiop';

/*
 * The FSPIOP bodies the ALS writes itself (API Definition v1.1, 6.2 Participants). They are wire shapes, so
 * they live with the protocol: discovery/ builds them, fspiop/serialisers.ts compiles their schemas, and the
 * protocol layer never imports a flow.
 */

/** The body of PUT /participants/{Type}/{ID} the original sends after a POST or PUT. */
export interface ParticipantPartyList {
  readonly partyList: readonly {
    readonly partyIdType: string;
    readonly partyIdentifier: string;
    readonly fspId: string;
    readonly partySubIdOrType?: string;
  }[];
  readonly currency?: string;
}

/** One PartyIdInfo of a batch POST /participants (and of the oracle's answer to it). */
export interface BatchParty {
  readonly partyIdType: string;
  readonly partyIdentifier: string;
  readonly partySubIdOrType?: string;
  readonly fspId?: string;
  readonly currency?: string;
}

/** One entry of the batch's PUT /participants/{requestId}: the party, and its error when it failed. */
export interface BatchResultEntry {
  readonly partyId: BatchParty;
  readonly errorInformation?: ErrorInformation;
}
