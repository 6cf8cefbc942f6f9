/**
 * Identifier rules per party ID type, checked after the 202 like the original (error callback 3101).
 * MSISDN: E.164 digits with an optional leading plus (FSPIOP API v1.1 section 7.5.6, PartyIdType).
 * Every identifier: 1 to 128 characters (PartyIdentifier, section 7.3.24).
 */
const rules: Readonly<Record<string, RegExp>> = {
  MSISDN: /^\+?\d{1,30}$/,
  EMAIL: /^[^\s@]+@[^\s@]+$/,
};

export function isValidPartyId(type: string, id: string): boolean {
  if (id.length < 1 || id.length > 128) return false;
  const rule = rules[type];
  return rule ? rule.test(id) : true;
}

/** PartySubIdOrType: 1 to 128 characters (section 7.3.27). */
export function isValidSubId(subId: string): boolean {
  return subId.length >= 1 && subId.length <= 128;
}
