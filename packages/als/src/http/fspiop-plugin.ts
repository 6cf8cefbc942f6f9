import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AlsError } from '../fspiop/errors.js';
import type { Serialisers } from '../fspiop/serialisers.js';

export function sendAlsError(reply: FastifyReply, serialisers: Serialisers, error: AlsError): FastifyReply {
  return reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(serialisers.error(error.information()));
}

/**
 * What every FSPIOP server of ours shares: bodies kept as the bytes received (PUT callbacks are
 * forwarded as they came, issue #3), FSPIOP error bodies for everything that fails before a handler
 * answers (an oversized body is 3104, an unknown route 3002), and never a 5xx for bad input.
 */
/**
 * Fastify answers a URL it cannot decode (FST_ERR_BAD_URL) before any hook or error handler runs; this
 * is its `frameworkErrors` option, so that answer is an FSPIOP error too.
 */
export function frameworkErrors(serialisers: Serialisers) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const alsError =
      error.code === 'FST_ERR_BAD_URL'
        ? new AlsError('MALFORMED_URI', { path: request.url })
        : new AlsError('MALFORMED_HEADER', { header: 'content-type' });
    sendAlsError(reply, serialisers, alsError);
  };
}

export function registerFspiopBasics(app: FastifyInstance, serialisers: Serialisers, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  const keepBytes = (_request: FastifyRequest, body: Buffer | string, done: (error: null, body: unknown) => void) =>
    done(null, body);
  // The same parser twice: Fastify caches the parser it found per Content-Type only for a RegExp or exact
  // match, never for the catch-all, which costs a media type parse per request with a body. FSPIOP media
  // types (FSPIOP API v1.1 section 3.2.4.3) match the RegExp; anything else still reaches the catch-all, and the
  // header checks answer it.
  app.addContentTypeParser(/^application\/vnd\.interoperability\./, { parseAs: 'buffer', bodyLimit }, keepBytes);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, keepBytes);

  app.setNotFoundHandler((request, reply) =>
    sendAlsError(reply, serialisers, new AlsError('UNKNOWN_URI', { method: request.method, path: request.url })),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AlsError) return sendAlsError(reply, serialisers, error);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendAlsError(reply, serialisers, new AlsError('BODY_TOO_LARGE', { limit: bodyLimit }));
    if (error.statusCode !== undefined && error.statusCode < 500)
      return sendAlsError(reply, serialisers, new AlsError('MALFORMED_BODY'));
    request.log.error({ err: error }, 'unexpected failure while answering');
    return reply
      .code(500)
      .header('content-type', 'application/json; charset=utf-8')
      .send(serialisers.error({ errorCode: '2001', errorDescription: 'Internal server error' }));
  });
}
