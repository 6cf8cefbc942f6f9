import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AlsError } from '../fspiop/errors.js';
import type { Serialisers } from '../fspiop/serialisers.js';
import type { FailureReporter } from '../observe/failures.js';

export function sendAlsError(
  reply: FastifyReply,
  serialisers: Serialisers,
  error: AlsError,
  failures?: FailureReporter,
): FastifyReply {
  if (failures) reportAnswer(failures, reply.request, error.status, error.information());
  return reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(serialisers.error(error.information()));
}

/** Every synchronous error answer is counted and logged (observe/failures.ts); nothing runs for a success. */
function reportAnswer(
  failures: FailureReporter,
  request: FastifyRequest | undefined,
  status: number,
  information: { errorCode: string; errorDescription: string },
  cause?: unknown,
): void {
  failures.answered({
    status,
    errorCode: information.errorCode,
    errorDescription: information.errorDescription,
    method: request?.method,
    url: request?.url,
    traceparent: request?.headers.traceparent,
    cause,
  });
}

/**
 * Fastify answers some requests before any hook or error handler runs: a URL it cannot decode
 * (FST_ERR_BAD_URL) and a path parameter longer than `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH). This is
 * its `frameworkErrors` option, so those answers are FSPIOP errors too, each with its own code.
 */
export function frameworkErrors(serialisers: Serialisers, maxParamLength: number, failures?: FailureReporter) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let alsError: AlsError;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
      // The original's OpenAPI ID parameter has maxLength 128 (api-swagger.yaml, components/parameters/ID):
      // ajv's maxLength is a 3100 there (central-services-error-handling createFSPIOPErrorFromOpenapiError).
      alsError = new AlsError('PATH_PARAM_TOO_LONG', { param: 'ID', limit: maxParamLength });
    else if (error.code === 'FST_ERR_BAD_URL') alsError = new AlsError('MALFORMED_URI', { path: request.url });
    else alsError = new AlsError('MALFORMED_REQUEST', { reason: error.code });
    sendAlsError(reply, serialisers, alsError, failures);
  };
}

/**
 * What Node's HTTP parser refuses never reaches fastify: Node emits `clientError` with the socket and
 * fastify's default writes `{"error":"Bad Request"}`. This writes the FSPIOP error instead: a request that is
 * not HTTP/1.1 (bad framing, Content-Length with Transfer-Encoding, a NUL in a header) 400 3101, headers
 * over Node's limit 431 3104, a request not received within the request timeout 408 3000. The connection is
 * closed after it, as Node does: the parser cannot find the next request on it.
 */
export function clientErrors(
  serialisers: Serialisers,
  limits: { requestTimeoutMs: number; maxHeaderBytes: number },
  failures?: FailureReporter,
) {
  return (error: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let alsError: AlsError;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      alsError = new AlsError('REQUEST_TIMEOUT', { ms: limits.requestTimeoutMs });
    else if (error.code === 'HPE_HEADER_OVERFLOW')
      alsError = new AlsError('HEADERS_TOO_LARGE', { limit: limits.maxHeaderBytes });
    else alsError = new AlsError('MALFORMED_REQUEST', { reason: error.code ?? 'unparsable' });
    if (failures) reportAnswer(failures, undefined, alsError.status, alsError.information());
    // A response already started on this socket (a pipelined request's) cannot be followed by another one.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (socket.writable && !started) {
      const body = serialisers.error(alsError.information());
      socket.write(
        `HTTP/1.1 ${alsError.status} ${STATUS_CODES[alsError.status]}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

const emptyBody = Buffer.alloc(0);

/**
 * Reads a request body into one Buffer, at most `limit` bytes. A request with neither Content-Length nor
 * Transfer-Encoding has no body (RFC 9112 section 6.3): it is answered at once. That case matters:
 * with `optimizeEmptyRequests` Node dumps such a request's stream without ever emitting 'end', so
 * fastify's own reader waited forever on a bodyless DELETE or OPTIONS that carried a Content-Type (which is
 * how curl, fetch and node:http send a DELETE). `pnpm bench:micro --case body-reader` measures it beside
 * fastify's reader.
 */
export function readBody(limit: number) {
  return (request: FastifyRequest, payload: Readable, done: (error: Error | null, body?: Buffer) => void) => {
    const headers = request.headers;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      done(null, emptyBody);
      return;
    }
    if (Number(headers['content-length']) > limit) {
      done(new AlsError('BODY_TOO_LARGE', { limit }));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    // Settled once; listeners stay on the finished stream (removing them cost more per request than the
    // flag: the stream and its listeners are dropped together).
    let settled = false;
    const settle = (error: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      done(error, body);
    };
    payload.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > limit) {
        settle(new AlsError('BODY_TOO_LARGE', { limit }));
        return;
      }
      chunks.push(chunk);
    });
    payload.on('end', () => {
      settle(null, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    });
    payload.on('error', (error: Error) => {
      settle(Object.assign(error, { statusCode: 400 }));
    });
    payload.resume();
  };
}

/**
 * What every FSPIOP server of ours shares: bodies kept as the bytes received (PUT callbacks are
 * forwarded as they came), FSPIOP error bodies for everything that fails before a handler
 * answers (an oversized body is 3104, an unknown route 3002), and never a 5xx for bad input.
 */
export function registerFspiopBasics(
  app: FastifyInstance,
  serialisers: Serialisers,
  bodyLimit: number,
  failures?: FailureReporter,
  allowedMethods: (url: string) => readonly string[] = () => [],
): void {
  app.removeAllContentTypeParsers();
  const keepBytes = readBody(bodyLimit);
  // The same parser twice: Fastify caches the parser it found per Content-Type only for a RegExp or exact
  // match, never for the catch-all, which costs a media type parse per request with a body. FSPIOP media
  // types (FSPIOP API v1.1 section 3.2.4.3) match the RegExp; anything else still reaches the catch-all, and the
  // header checks answer it.
  app.addContentTypeParser(/^application\/vnd\.interoperability\./, { bodyLimit }, keepBytes);
  app.addContentTypeParser('*', { bodyLimit }, keepBytes);

  // A path served with other methods is 405 with Allow, as the original's error handling answers it.
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url);
    if (allowed.length === 0)
      return sendAlsError(
        reply,
        serialisers,
        new AlsError('UNKNOWN_URI', { method: request.method, path: request.url }),
        failures,
      );
    reply.header('allow', allowed.join(','));
    return sendAlsError(reply, serialisers, new AlsError('METHOD_NOT_ALLOWED'), failures);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AlsError) return sendAlsError(reply, serialisers, error, failures);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendAlsError(reply, serialisers, new AlsError('BODY_TOO_LARGE', { limit: bodyLimit }), failures);
    if (error.statusCode !== undefined && error.statusCode < 500)
      return sendAlsError(reply, serialisers, new AlsError('MALFORMED_BODY'), failures);
    const information = { errorCode: '2001', errorDescription: 'Internal server error' };
    // The reporter logs it with its stack (rate-limited); without one, it is logged here.
    if (failures) reportAnswer(failures, request, 500, information, error);
    else request.log.error({ err: error }, 'unexpected failure while answering');
    return reply
      .code(500)
      .header('content-type', 'application/json; charset=utf-8')
      .send(serialisers.error(information));
  });
}
