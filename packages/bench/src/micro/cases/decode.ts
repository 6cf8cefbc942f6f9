import { decodeMessage } from '@mojafast/position-handler';
import { generatePositionMessages, generateTransfers } from '@mojafast/position-handler/testing';
import { keep, type MicroCase, timeLoop } from '../harness.js';

/**
 * The position handler's decodeMessage (the envelope, the base64 data-URI payload checked by length, the
 * payload's text kept when already compact) against two references: JSON.parse of the whole Kafka value alone,
 * the floor any decoder pays, and the plain way of doing decodeMessage's work (JSON.parse of the value, a
 * regular expression over the base64, JSON.parse of the payload, JSON.stringify for the notification), which
 * the hand-written parts replace. No library decodes this envelope.
 */
export const decodeCase: MicroCase = {
  name: 'decode-message',
  operation: "decoding one prepare message of the position topic (about 2 KB, central-ledger's envelope)",
  load: '2,048 prepare messages (random UUIDs, one fixed date), 4 FSPs, 2 currencies, values as Buffers',
  unit: 'ns/op',
  operations: 100_000,
  async setUp() {
    const transfers = generateTransfers({
      transfers: 2048,
      dfsps: ['perffsp1', 'perffsp2', 'perffsp3', 'perffsp4'],
      currencies: ['USD', 'EUR'],
      amount: '10.5',
    });
    const messages = generatePositionMessages({
      transfers,
      action: 'prepare',
      accountOf: (dfsp, currency) => 1 + Number(dfsp.slice(7)) * 2 + (currency === 'USD' ? 0 : 1),
      now: new Date(Date.UTC(2026, 0, 1)),
    }).map((m) => ({ key: Buffer.from(m.key), value: Buffer.from(m.value) }));
    const mask = messages.length - 1;
    const at = (i: number) => messages[i & mask] as { key: Buffer; value: Buffer };
    const base64Pattern = /^data:[^,]*;base64,([A-Za-z0-9+/]*={0,2})$/;

    const plainDecode = (value: Buffer) => {
      const envelope = JSON.parse(value.toString()) as { content: { payload: string } };
      const match = base64Pattern.exec(envelope.content.payload);
      if (!match) throw new Error('not a base64 data URI');
      const payload = JSON.parse(Buffer.from(match[1] as string, 'base64').toString('utf8')) as Record<string, unknown>;
      return { envelope, payload, payloadJson: JSON.stringify(payload) };
    };

    return {
      sides: [
        {
          label: 'decodeMessage (ours)',
          role: 'ours',
          sample: (n) => timeLoop(n, (i) => keep(decodeMessage(at(i).key, at(i).value))),
        },
        {
          label: 'plain decode: JSON.parse, base64 regular expression, JSON.parse, JSON.stringify',
          role: 'plain',
          sample: (n) => timeLoop(n, (i) => keep(plainDecode(at(i).value))),
        },
        {
          label: 'JSON.parse of the whole value only (floor)',
          role: 'floor',
          sample: (n) => timeLoop(n, (i) => keep(JSON.parse(at(i).value.toString()))),
        },
      ],
      async close() {},
    };
  },
};
