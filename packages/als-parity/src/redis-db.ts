import { randomUUID } from 'node:crypto';
import { createConnection, type Socket } from 'node:net';
import { loadInfraSettings } from '@mojafast/testkit';

/**
 * A database (1-15) of the project's Redis for one parity run's proxy cache, emptied before and after. The
 * proxy cache's keys are global and the timeout handler scans them all, so a run must not share its database:
 * the number comes from the counter the ALS's test files take theirs from (database 0), and the run's mark is
 * checked at the end, so a run another user of the same number disturbed fails instead of passing unnoticed.
 */
export interface RunRedis {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  drop(): Promise<void>;
}

const OWNER_KEY = 'mojafast:test-owner';

/** One command at a time over RESP (the few this needs: integer, simple-string and bulk-string replies). */
async function connect(
  host: string,
  port: number,
): Promise<{ command(...args: string[]): Promise<string>; end(): void }> {
  const socket: Socket = createConnection({ host, port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = '';
  let waiting: ((reply: string) => void) | undefined;
  let failed: ((error: Error) => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const end = buffered.indexOf('\r\n');
    if (end < 0) return;
    const head = buffered.slice(0, end);
    let reply: string;
    if (head[0] === '$') {
      const length = Number(head.slice(1));
      if (length < 0) reply = '';
      else if (buffered.length < end + 2 + length + 2) return;
      else reply = buffered.slice(end + 2, end + 2 + length);
    } else if (head[0] === '-') {
      failed?.(new Error(`Redis: ${head.slice(1)}`));
      buffered = '';
      return;
    } else reply = head.slice(1);
    buffered = '';
    waiting?.(reply);
  });
  return {
    command: (...args) =>
      new Promise<string>((resolve, reject) => {
        waiting = resolve;
        failed = reject;
        socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
      }),
    end: () => socket.end(),
  };
}

export async function claimRedisDb(): Promise<RunRedis> {
  const { host, port } = loadInfraSettings().redis;
  const client = await connect(host, port);
  const db = (Number(await client.command('INCR', 'mojafast:test-db-counter')) % 15) + 1;
  await client.command('SELECT', String(db));
  await client.command('FLUSHDB');
  const owner = randomUUID();
  await client.command('SET', OWNER_KEY, owner);
  return {
    host,
    port,
    db,
    async drop() {
      const found = await client.command('GET', OWNER_KEY);
      await client.command('FLUSHDB');
      client.end();
      if (found !== owner) throw new Error(`Redis database ${db} was used by another run meanwhile`);
    },
  };
}
