import { describe, expect, it } from 'vitest';
import { decodePayloadWithText } from '../src/messages/decode.js';

const dataUri = (text: string) => `data:application/json;base64,${Buffer.from(text).toString('base64')}`;

// The payload's JSON text is what the notifications embed: compact, as the original serialises the decoded
// payload (the switch suite's commit-spaced scenario compares the Kafka values with central-ledger's).
describe("a message payload's JSON text", () => {
  const body = { transferId: 't', amount: { currency: 'USD', amount: '1.50' }, note: 'a b' };

  it('is the text as sent when it is compact already', () => {
    const text = JSON.stringify({ transferId: 't', amount: { amount: '1', currency: 'USD' } });
    expect(decodePayloadWithText(dataUri(text)).json).toBe(text);
  });

  it('is serialised again, compact and in the sender key order, when the sender spaced it over lines', () => {
    const decoded = decodePayloadWithText(dataUri(JSON.stringify(body, null, 2)));
    expect(decoded.json).toBe(JSON.stringify(body));
    expect(decoded.json).not.toContain('\n');
    expect(decoded.value).toEqual(body);
  });
});
