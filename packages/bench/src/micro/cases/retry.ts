import { retryResetOnce } from '@mojafast/als';
import { Agent, type Dispatcher, interceptors } from 'undici';
import { cpuPerOperation, type MicroCase } from '../harness.js';
import { startPeer } from '../peer.js';

const inFlight = 16;
const body = Buffer.from(
  JSON.stringify({ party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '123456789' } } }),
);

/** Collects one exchange as the ALS's client does (a handler, no response stream) and settles when it ends. */
class Exchange implements Dispatcher.DispatchHandler {
  constructor(
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {}
  onRequestStart(): void {}
  onResponseStart(): void {}
  onResponseData(): void {}
  onResponseEnd(): void {
    this.resolve();
  }
  onResponseError(_controller: unknown, error: Error): void {
    this.reject(error);
  }
}

/**
 * The ALS's retry of a reset (retryResetOnce: one retry of a request that failed before any byte of its answer)
 * against undici's own `interceptors.retry` set to the same rule (one retry, no status retried, the same error
 * codes, every method, no wait), and the agent with no interceptor as the floor. Client CPU per request; the
 * server answers from another process and no request fails, so this is what every request pays.
 */
export const retryCase: MicroCase = {
  name: 'retry-interceptor',
  operation: 'one PUT through an undici Agent with the retry interceptor composed in (client CPU only)',
  load: `${inFlight} in flight over keep-alive loopback sockets to a node:http server in another process, ${body.length}-byte body, 200 answers`,
  unit: 'µs CPU/op',
  operations: 20_000,
  async setUp() {
    const server = await startPeer('server');
    const origin = `http://127.0.0.1:${server.first.port as number}`;
    const agents: Agent[] = [];
    const client = (wrap: (agent: Agent) => Dispatcher) => {
      const agent = new Agent({ connections: inFlight, keepAliveTimeout: 60_000 });
      agents.push(agent);
      const dispatcher = wrap(agent);
      const dispatch = dispatcher.dispatch.bind(dispatcher);
      const one = () =>
        new Promise<void>((resolve, reject) =>
          dispatch(
            {
              origin,
              path: '/parties/MSISDN/123456789',
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body,
            },
            new Exchange(resolve, reject),
          ),
        );
      return (n: number) =>
        cpuPerOperation(n, async () => {
          let next = 0;
          const worker = async () => {
            while (next < n) {
              next++;
              await one();
            }
          };
          await Promise.all(Array.from({ length: inFlight }, worker));
        });
    };
    return {
      sides: [
        { label: 'retryResetOnce (ours)', role: 'ours', sample: client((agent) => agent.compose(retryResetOnce())) },
        {
          label: "undici's interceptors.retry, same rule",
          role: 'library',
          sample: client((agent) =>
            agent.compose(
              interceptors.retry({
                maxRetries: 1,
                minTimeout: 0,
                maxTimeout: 0,
                timeoutFactor: 1,
                statusCodes: [],
                errorCodes: ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'],
                methods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'POST', 'DELETE', 'PATCH'],
              }),
            ),
          ),
        },
        { label: 'no interceptor (floor)', role: 'floor', sample: client((agent) => agent) },
      ],
      async close() {
        await Promise.all(agents.map((agent) => agent.close()));
        await server.stop();
      },
    };
  },
};
