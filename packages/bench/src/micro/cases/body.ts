import type { AddressInfo } from 'node:net';
import { readBody } from '@mojafast/als';
import Fastify, { type FastifyInstance } from 'fastify';
import { cpuPerOperation, type MicroCase } from '../harness.js';
import { startPeer } from '../peer.js';

const inFlight = 16;
const bodyLimit = 1024 * 1024;
/** A PUT /parties callback's body, as FSPs send it. */
const callbackBody = JSON.stringify({
  party: {
    partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: 'payeefsp' },
    merchantClassificationCode: '4321',
    name: 'Justin Trudeau',
    personalInfo: {
      complexName: { firstName: 'Justin', middleName: 'Pierre', lastName: 'Trudeau' },
      dateOfBirth: '1971-12-25',
    },
  },
});

/** A fastify app with one PUT route whose FSPIOP bodies are kept as bytes by `register`'s parser. */
async function listen(register: (app: FastifyInstance) => void): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  register(app);
  app.put('/parties/:type/:id', (request, reply) => {
    reply.code(200).send((request.body as Buffer).length > 0 ? '' : 'empty');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/parties/MSISDN/27713803912` };
}

/**
 * The ALS's body reader (fspiop-plugin.ts readBody: the body kept as one Buffer, a bodyless request answered at
 * once) against fastify's own reader (`parseAs: 'buffer'`), each registered the way the ALS registers its
 * parser (the FSPIOP media types by RegExp, then the catch-all). Server CPU per request, the load from another
 * process.
 */
export const bodyCase: MicroCase = {
  name: 'body-reader',
  operation: 'one PUT /parties callback received by fastify with its body kept as bytes (server CPU only)',
  load: `${inFlight} in flight over keep-alive loopback sockets from undici in another process, ${Buffer.byteLength(callbackBody)}-byte body`,
  unit: 'µs CPU/op',
  operations: 20_000,
  async setUp() {
    const fspiop = /^application\/vnd\.interoperability\./;
    const ours = await listen((app) => {
      const reader = readBody(bodyLimit);
      app.addContentTypeParser(fspiop, { bodyLimit }, reader);
      app.addContentTypeParser('*', { bodyLimit }, reader);
    });
    const library = await listen((app) => {
      const keep = (_request: unknown, body: Buffer | string, done: (error: null, body: Buffer | string) => void) =>
        done(null, body);
      app.addContentTypeParser(fspiop, { bodyLimit, parseAs: 'buffer' }, keep);
      app.addContentTypeParser('*', { bodyLimit, parseAs: 'buffer' }, keep);
    });
    const load = await startPeer('load');
    const side = (url: string) => (n: number) =>
      cpuPerOperation(n, async () => {
        const answer = await load.request({ url, requests: n, concurrency: inFlight, body: callbackBody });
        if (answer.failed !== 0) throw new Error(`${answer.failed} requests failed against ${url}`);
      });
    return {
      sides: [
        { label: 'readBody (ours)', role: 'ours', sample: side(ours.url) },
        { label: "fastify's reader, parseAs: 'buffer'", role: 'library', sample: side(library.url) },
      ],
      async close() {
        await load.stop();
        await Promise.all([ours.app.close(), library.app.close()]);
      },
    };
  },
};
