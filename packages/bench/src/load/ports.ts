import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago, for a child process that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not read the port of a probe socket');
  return address.port;
}
