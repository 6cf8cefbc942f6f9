import type { ErrorInformation } from '@mojafast/fspiop';

/**
 * The one ISO 20022 body the ALS writes itself: a /parties error callback of the Hub as an
 * IdentificationVerificationReport, in the original's field order. The original's mapping keeps only the
 * error code (`Rpt.Rsn.Cd`); the description and extensions are not carried. Its message id and original id
 * are new ULIDs, its creation time now.
 */
export function isoPartiesErrorBody(information: ErrorInformation, assigner: string, assignee: string): string {
  const agent = (id: string) => `{"Agt":{"FinInstnId":{"Othr":{"Id":${JSON.stringify(id)}}}}}`;
  return (
    `{"Rpt":{"Rsn":{"Cd":${JSON.stringify(String(information.errorCode))}},"OrgnlId":"${ulid()}","Vrfctn":false},` +
    `"Assgnmt":{"MsgId":"${ulid()}","CreDtTm":"${new Date().toISOString()}",` +
    `"Assgnr":${agent(assigner)},"Assgne":${agent(assignee)}}}`
  );
}

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = -1;
/** The 80 random bits of the last id, as 16 base-32 digits (0-31), most significant first. */
const lastRandom = new Uint8Array(16);

/**
 * A ULID (26 Crockford base-32 characters: 48 bits of milliseconds, 80 random bits), monotonic within a
 * millisecond (the random part of the previous id plus one), as the original's ids are.
 */
export function ulid(now = Date.now()): string {
  if (now === lastTime) {
    let i = 15;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i >= 0) lastRandom[i] = (lastRandom[i] as number) + 1;
  } else {
    lastTime = now;
    crypto.getRandomValues(lastRandom);
    for (let i = 0; i < 16; i++) lastRandom[i] = (lastRandom[i] as number) & 31;
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = crockford[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = '';
  for (const digit of lastRandom) random += crockford[digit];
  return time + random;
}
