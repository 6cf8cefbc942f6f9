import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * On-demand CPU profile through the inspector of this very process: no restart, no clinic needed. The file
 * opens in Chrome DevTools (Performance tab) or speedscope. One at a time.
 */
export class CpuProfiler {
  private running: Promise<string> | undefined;

  constructor(private readonly directory: string) {}

  isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Profiles for `seconds` and resolves with the written file's path. */
  profile(seconds: number): Promise<string> {
    if (this.running) return this.running;
    this.running = this.record(seconds).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Waits for a profile in progress, so shutdown does not cut it off. */
  async settle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async record(seconds: number): Promise<string> {
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const { profile } = await session.post('Profiler.stop');
      const file = join(this.directory, `position-${process.pid}-${Date.now()}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      return file;
    } finally {
      session.disconnect();
    }
  }
}
