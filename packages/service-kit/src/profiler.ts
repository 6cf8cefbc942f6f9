import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export interface CpuProfiler {
  /**
   * Profiles this process for `seconds`, writes `<prefix>-<pid>-<time>.cpuprofile` in the directory and
   * answers its path. One at a time: asked while one runs, it answers that one's path.
   */
  profile(seconds: number): Promise<string>;
  readonly running: boolean;
  /** Ends a running profile now and writes it: a shutdown neither loses it nor waits out its seconds. */
  stop(): Promise<void>;
}

export interface CpuProfilerOptions {
  readonly directory: string;
  /** The file name's first part, the service's name (`als`, `position`). */
  readonly prefix: string;
}

/**
 * On-demand CPU profiles through the inspector of this very process (the Profiler domain): no restart and
 * no clinic needed. The file opens in Chrome DevTools (Performance tab) and speedscope.
 */
export function createCpuProfiler(options: CpuProfilerOptions): CpuProfiler {
  let current: { done: Promise<string>; finish: () => void } | undefined;

  const record = async (finished: Promise<void>): Promise<string> => {
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await finished;
      const { profile } = await session.post('Profiler.stop');
      const file = join(options.directory, `${options.prefix}-${process.pid}-${Date.now()}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      return file;
    } finally {
      session.disconnect();
    }
  };

  return {
    profile(seconds) {
      if (current) return current.done;
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const timer = setTimeout(finish, seconds * 1000);
      const done = record(finished).finally(() => {
        clearTimeout(timer);
        current = undefined;
      });
      current = { done, finish };
      return done;
    },
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
