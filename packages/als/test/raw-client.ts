import net from 'node:net';
import { expect } from 'vitest';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Splits the bytes a server wrote into HTTP/1.1 responses (Content-Length framed, as the ALS writes them). */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return responses;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length);
    responses.push({ status: Number(statusLine?.split(' ')[1]), headers, body: body.toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
}

/**
 * Sends bytes as written (no client fixing the framing) and collects what comes back until the server
 * closes the connection, `expected` responses have arrived, or `timeoutMs` passed. `parts` are written
 * `gapMs` apart (a slow client); a write after the server closed is ignored.
 */
export function rawExchange(
  port: number,
  parts: readonly (string | Buffer)[],
  options: { expected?: number; timeoutMs?: number; gapMs?: number } = {},
): Promise<{ responses: RawResponse[]; closed: boolean; elapsedMs: number }> {
  const { expected = 1, timeoutMs = 5_000, gapMs = 0 } = options;
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks)), closed, elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const responses = parseResponses(Buffer.concat(chunks));
      const last = responses[responses.length - 1];
      if (
        responses.length >= expected &&
        last &&
        Buffer.byteLength(last.body) >= Number(last.headers['content-length'] ?? 0)
      )
        finish();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    let index = 0;
    const writeNext = () => {
      if (done || socket.destroyed || index >= parts.length) return;
      socket.write(parts[index++] as string | Buffer);
      if (gapMs > 0) setTimeout(writeNext, gapMs);
      else writeNext();
    };
    socket.on('connect', writeNext);
  });
}

/** The header block of a request, lines joined with CRLF, ending in the empty line. */
export function head(requestLine: string, headers: Record<string, string>): string {
  return `${requestLine}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/** A synchronous FSPIOP error answer: its status, a JSON body, and the error code in it. */
export function expectFspiopError(response: RawResponse | undefined, status: number, code: string): void {
  expect(response?.status).toBe(status);
  expect(response?.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(response?.body ?? '')).toMatchObject({ errorInformation: { errorCode: code } });
}
