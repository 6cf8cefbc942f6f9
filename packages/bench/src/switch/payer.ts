import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The payer FSP of bench:switch, inside the generator so a callback ends its wait without another hop: it
 * answers every callback 200 and settles the wait for it, a party lookup's (PUT /parties/{Type}/{ID}) or a
 * transfer's (PUT /transfers/{id}); an `/error` callback settles it as failed with the error's code. Waits
 * that outlive their deadline fail, swept by one interval rather than a timer each.
 */
export type CallbackOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

interface Waiter {
  readonly deadline: number;
  readonly resolve: (outcome: CallbackOutcome) => void;
}

export class PayerFsp {
  readonly #waiters = new Map<string, Waiter>();
  readonly #sweep: NodeJS.Timeout;
  /** Callbacks nobody waited for (late, after a timeout, or twice). */
  unexpected = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    this.#sweep = setInterval(() => {
      const now = performance.now();
      for (const [key, w] of this.#waiters) {
        if (w.deadline <= now) {
          this.#waiters.delete(key);
          w.resolve({ ok: false, reason: `no ${key.split(' ')[0]} callback in time` });
        }
      }
    }, 20);
  }

  static async start(): Promise<PayerFsp> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const payer = new PayerFsp(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200).end();
        payer.#settle(req.method ?? '', req.url ?? '', Buffer.concat(chunks).toString('utf8'));
      });
    });
    return payer;
  }

  /** The key of a wait from a callback's path: `party <ID>` or `transfer <id>`, and whether it is an error. */
  static keyOf(path: string): { key: string; error: boolean } | undefined {
    const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
    const error = parts.at(-1) === 'error';
    if (parts[0] === 'parties' && parts.length >= 3) return { key: `party ${parts[2]}`, error };
    if (parts[0] === 'transfers' && parts.length >= 2) return { key: `transfer ${parts[1]}`, error };
    return undefined;
  }

  #settle(method: string, path: string, body: string): void {
    if (method !== 'PUT') return;
    const found = PayerFsp.keyOf(path);
    const waiter = found && this.#waiters.get(found.key);
    if (!found || !waiter) {
      this.unexpected++;
      return;
    }
    this.#waiters.delete(found.key);
    if (!found.error) {
      waiter.resolve({ ok: true });
      return;
    }
    const code = /"errorCode"\s*:\s*"(\d+)"/.exec(body)?.[1] ?? '?';
    waiter.resolve({ ok: false, reason: `${found.key.split(' ')[0]} error callback ${code}` });
  }

  /** Registers the wait before the request goes out, so an early callback is not missed. */
  wait(key: string, timeoutMs: number): Promise<CallbackOutcome> {
    return new Promise((resolve) => this.#waiters.set(key, { deadline: performance.now() + timeoutMs, resolve }));
  }

  close(): Promise<void> {
    clearInterval(this.#sweep);
    for (const [key, w] of this.#waiters) w.resolve({ ok: false, reason: `${key}: stopped` });
    this.#waiters.clear();
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
