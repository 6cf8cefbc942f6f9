/**
 * Enumeration ids as central-ledger's seeds number them (seeds/*.js insert in this order into
 * auto-increment tables) and as its code uses them (Enum.Accounts in central-services-shared).
 */
export const LedgerAccountType = Object.freeze({ POSITION: 1, SETTLEMENT: 2 });
export const ParticipantLimitType = Object.freeze({ NET_DEBIT_CAP: 1 });
export const TransferParticipantRoleType = Object.freeze({ PAYER_DFSP: 1, PAYEE_DFSP: 2 });
export const LedgerEntryType = Object.freeze({ PRINCIPLE_VALUE: 1 });
