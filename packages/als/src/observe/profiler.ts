import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export interface CpuProfiler {
  /** Profiles for `seconds`, writes `als-<pid>-<time>.cpuprofile` in the directory, answers its path. */
  profile(seconds: number): Promise<string>;
  readonly running: boolean;
  /** Ends a running profile early and writes it (shutdown must not lose it). */
  stop(): Promise<void>;
}

/**
 * On-demand CPU profiles through the inspector protocol (Profiler domain), written as .cpuprofile that
 * Chrome DevTools and speedscope open. One at a time.
 */
export function createCpuProfiler(directory: string): CpuProfiler {
  let current: { session: Session; timer: NodeJS.Timeout; done: Promise<string>; finish: () => void } | undefined;

  const profile = async (seconds: number): Promise<string> => {
    if (current) throw new Error('a CPU profile is already running');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const timer = setTimeout(() => finish(), seconds * 1000);
    const done = finished.then(async () => {
      clearTimeout(timer);
      const { profile: data } = await session.post('Profiler.stop');
      session.disconnect();
      const file = join(directory, `als-${process.pid}-${Date.now()}.cpuprofile`);
      await writeFile(file, JSON.stringify(data));
      current = undefined;
      return file;
    });
    current = { session, timer, done, finish };
    return done;
  };

  return {
    profile,
    get running() {
      return current !== undefined;
    },
    async stop() {
      if (!current) return;
      const { done, finish } = current;
      finish();
      await done.catch(() => {});
    },
  };
}
