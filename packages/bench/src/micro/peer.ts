import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

const script = new URL('./peer-process.js', import.meta.url);

/** A forked peer-process.ts; `request` sends one message and waits for the next one it sends back. */
export interface Peer {
  readonly child: ChildProcess;
  readonly first: Record<string, unknown>;
  request(message: unknown): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startPeer(role: 'server' | 'load'): Promise<Peer> {
  const child = fork(script, [role], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  const died = exited.then(([code]) => {
    throw new Error(`micro-benchmark peer (${role}) exited with ${code}`);
  });
  // Its rejection is awaited through the race below; the peer's normal exit at the end is no failure.
  died.catch(() => {});
  const next = () =>
    Promise.race([once(child, 'message').then(([message]) => message as Record<string, unknown>), died]);
  const first = await next();
  return {
    child,
    first,
    request(message) {
      const answer = next();
      child.send(message as object);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      await exited;
    },
  };
}
