import { randomBytes } from 'node:crypto';

/**
 * The FSP side of ISO 20022 mode's cryptographic lock: an ILP v4 prepare packet in its OER encoding, which a
 * pacs.008 carries (VrfctnOfTerms.IlpV4PrepPacket, base64url) and from which ml-api-adapter takes the
 * transfer's condition; and the ULIDs its identifiers must be (PmtId.TxId, EndToEndId, GrpHdr.MsgId).
 */
export interface IlpPrepare {
  /** Unsigned 64-bit amount in the currency's minor units. */
  readonly amount: bigint;
  readonly expiresAt: Date;
  /** The SHA-256 of the fulfilment: 32 bytes. */
  readonly executionCondition: Buffer;
  /** An ILP address (ASCII), e.g. `g.<payee fsp>`. */
  readonly destination: string;
  readonly data: Buffer;
}

const TYPE_ILP_PREPARE = 12;

/** OER length determinant: one byte below 128, else 0x80 + the count of the length's own bytes, then them. */
function lengthPrefix(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const varOctets = (b: Buffer): Buffer => Buffer.concat([lengthPrefix(b.length), b]);

/** Interledger time: `YYYYMMDDHHmmssSSS`, UTC, 17 ASCII bytes. */
export function interledgerTime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
}

export function serializeIlpPrepare(p: IlpPrepare): Buffer {
  if (p.executionCondition.length !== 32) throw new Error('executionCondition must be 32 bytes');
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64BE(p.amount);
  const contents = Buffer.concat([
    amount,
    Buffer.from(interledgerTime(p.expiresAt), 'ascii'),
    p.executionCondition,
    varOctets(Buffer.from(p.destination, 'ascii')),
    varOctets(p.data),
  ]);
  return Buffer.concat([Buffer.from([TYPE_ILP_PREPARE]), varOctets(contents)]);
}

/** Reads a packet back (the fields ml-api-adapter's transformer reads: the condition above all). */
export function deserializeIlpPrepare(packet: Buffer): IlpPrepare {
  if (packet[0] !== TYPE_ILP_PREPARE) throw new Error(`not an ILP prepare packet (type ${packet[0]})`);
  let at = 1;
  const readLength = (): number => {
    const first = packet[at++] as number;
    if (first < 0x80) return first;
    let n = 0;
    for (let i = 0; i < (first & 0x7f); i++) n = n * 256 + (packet[at++] as number);
    return n;
  };
  const contentLength = readLength();
  if (at + contentLength !== packet.length) throw new Error('ILP prepare packet length mismatch');
  const amount = packet.readBigUInt64BE(at);
  at += 8;
  const t = packet.subarray(at, at + 17).toString('ascii');
  at += 17;
  const expiresAt = new Date(
    `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}.${t.slice(14, 17)}Z`,
  );
  const executionCondition = packet.subarray(at, at + 32);
  at += 32;
  const destinationLength = readLength();
  const destination = packet.subarray(at, at + destinationLength).toString('ascii');
  at += destinationLength;
  const dataLength = readLength();
  const data = packet.subarray(at, at + dataLength);
  return { amount, expiresAt, executionCondition, destination, data };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48 bits of milliseconds, then 80 random bits, in Crockford's base 32 (26 characters). */
export function newUlid(now = Date.now()): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = randomBytes(10);
  let bits = 0n;
  for (const b of random) bits = (bits << 8n) | BigInt(b);
  let tail = '';
  for (let i = 0; i < 16; i++, bits >>= 5n) tail = CROCKFORD[Number(bits & 31n)] + tail;
  return time + tail;
}
