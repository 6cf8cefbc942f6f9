import { describe, expect, it } from 'vitest';
import { closeFailure, createResources } from '../src/resources.js';

describe('resources', () => {
  it('closes what was opened last first, each awaited before the next', async () => {
    const resources = createResources();
    const closed: string[] = [];
    const slow = (name: string) => () =>
      new Promise<void>((resolve) => {
        setImmediate(() => {
          closed.push(name);
          resolve();
        });
      });
    resources.own('store', 'store', slow('store'));
    resources.own('pools', 'pools', slow('pools'));
    resources.own('servers', 'servers', slow('servers'));
    expect(resources.open).toEqual(['store', 'pools', 'servers']);
    expect(await resources.close()).toEqual([]);
    expect(closed).toEqual(['servers', 'pools', 'store']);
    expect(resources.open).toEqual([]);
  });

  it('goes on closing past a failure and reports it with its name', async () => {
    const resources = createResources();
    const closed: string[] = [];
    const failure = new Error('socket stuck');
    resources.own('store', 1, () => closed.push('store'));
    resources.own('redis', 2, () => {
      throw failure;
    });
    resources.own('timer', 3, async () => closed.push('timer'));
    expect(await resources.close()).toEqual([{ name: 'redis', error: failure }]);
    expect(closed).toEqual(['timer', 'store']);
  });

  it('closes once: a second close() gets the first one, and nothing can be opened after it', async () => {
    const resources = createResources();
    let closings = 0;
    resources.own('pool', {}, () => closings++);
    const first = resources.close();
    expect(resources.close()).toBe(first);
    await first;
    expect(closings).toBe(1);
    expect(() => resources.own('late', {}, () => undefined)).toThrow('late opened after the resources were closed');
  });

  it('tells its hooks as each starts and ends closing; a failure is one error naming what failed', async () => {
    const told: string[] = [];
    const resources = createResources({
      closing: (name) => told.push(`closing ${name}`),
      closed: (name) => told.push(`closed ${name}`),
    });
    resources.own('pool', 1, () => undefined);
    resources.own('server', 2, () => {
      throw new Error('port stuck');
    });
    const failures = await resources.close();
    expect(told).toEqual(['closing server', 'closing pool', 'closed pool']);
    expect(closeFailure(failures)?.message).toBe('closing failed: server');
    expect(closeFailure([])).toBeUndefined();
  });

  it('closes at the end of an `await using` block and throws what failed to close', async () => {
    const closed: string[] = [];
    const play = async () => {
      await using resources = createResources();
      resources.own('pool', 1, () => closed.push('pool'));
      resources.own('server', 2, () => {
        throw new Error('port stuck');
      });
    };
    await expect(play()).rejects.toThrow('closing failed: server');
    expect(closed).toEqual(['pool']);
  });
});
