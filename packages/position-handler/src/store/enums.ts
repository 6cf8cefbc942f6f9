/**
 * Enumeration ids as central-ledger's seeds number them (seeds/*.js insert in this order into
 * auto-increment tables) and as its code uses them (Enum.Accounts in central-services-shared).
 */
export const LedgerAccountType = Object.freeze({ POSITION: 1, SETTLEMENT: 2 });
export const ParticipantLimitType = Object.freeze({ NET_DEBIT_CAP: 1 });
export const TransferParticipantRoleType = Object.freeze({
  PAYER_DFSP: 1,
  PAYEE_DFSP: 2,
  INITIATING_FSP: 6,
  COUNTER_PARTY_FSP: 7,
});
export const FxTransferType = Object.freeze({ PAYER_CONVERSION: 1, PAYEE_CONVERSION: 2 });
export const FxParticipantCurrencyType = Object.freeze({ SOURCE: 1, TARGET: 2 });
export const LedgerEntryType = Object.freeze({ PRINCIPLE_VALUE: 1 });
