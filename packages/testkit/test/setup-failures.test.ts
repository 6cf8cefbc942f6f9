import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// A set-up step that fails ends ./run and infra/svc with one line naming the cause and the log, under
// `set -e` too, and leaves nothing behind (the policy-rc.d that keeps apt from starting the system's own
// servers). The shell runs the scripts as ./run does (set -euo pipefail, common.sh sourced); apt-get, id and
// npm are fakes first on the PATH, the apt lock is a file of the test's own held by a process of its own.
const root = fileURLToPath(new URL('../../..', import.meta.url));
let work: string;
let fakeBin: string;
// apt-get: records each call and whether policy-rc.d was in place; `install` fails as apt does when another
// apt holds the dpkg lock, unless FAKE_APT_OK=1.
const failingAptGet = `policy=absent; [ -e "$APT_POLICY_RC" ] && policy=present
echo "$* policy=$policy" >>"$FAKE_APT_CALLS"
case "$*" in *install*) ;; *) exit 0 ;; esac
[ "$FAKE_APT_OK" = 1 ] && exit 0
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
exit 100`;

function writeScript(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

interface Run {
  status: number | null;
  stderr: string;
  errorLines: string[];
}

/** Runs SCRIPT in bash after sourcing common.sh the way ./run does, with the fakes first on the PATH. */
function runAsRun(script: string, env: Record<string, string> = {}): Run {
  const result = spawnSync(
    'bash',
    ['-c', `set -euo pipefail; ROOT='${root}'; SETUP_DID=(); source infra/lib/common.sh\n${script}`],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PATH: `${fakeBin}:${process.env.PATH}`,
        MOJAFAST_STATE_DIR: join(work, 'state'),
        APT_POLICY_RC: join(work, 'policy-rc.d'),
        APT_LOCK_FILES: join(work, 'dpkg-lock'),
        FAKE_APT_CALLS: join(work, 'apt-calls'),
        ...env,
      },
    },
  );
  const errorLines = result.stderr.split('\n').filter((line) => line.includes('ERROR'));
  return { status: result.status, stderr: result.stderr, errorLines };
}

function aptCalls(): string[] {
  const file = join(work, 'apt-calls');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'setup-failures-'));
  fakeBin = join(work, 'bin');
  spawnSync('mkdir', ['-p', fakeBin]);
  // Root without being root: the install path is the one a fresh machine's root takes.
  writeScript(join(fakeBin, 'id'), 'echo 0');
  writeScript(join(fakeBin, 'apt-get'), failingAptGet);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

let holder: ChildProcess | undefined;
afterEach(() => {
  if (holder?.exitCode === null) holder.kill('SIGKILL');
  holder = undefined;
  rmSync(join(work, 'apt-calls'), { force: true });
});

/** A process holding the test's dpkg lock (as another apt run would), for SECONDS. */
async function holdLock(seconds: number): Promise<ChildProcess> {
  const lock = join(work, 'dpkg-lock');
  writeFileSync(lock, '');
  // -o: the lock is flock's own, not inherited by the command, so killing flock releases it.
  const child = spawn('flock', ['-o', lock, 'sh', '-c', `echo locked; sleep ${seconds}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child;
}

describe('a failing apt-get install under set -e', () => {
  it('ends in one line naming apt-get, its cause and its log, and removes the policy-rc.d it added', () => {
    const run = runAsRun(`apt_install_server REDIS_EXTERNAL "$STATE_DIR/redis" redis-server redis-tools
echo "NOT REACHED"`);
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('NOT REACHED');
    expect(run.errorLines).toHaveLength(1);
    expect(run.errorLines[0]).toMatch(
      /^\[infra\] ERROR: apt-get install redis-server redis-tools failed \(exit 100: E: Could not get lock \/var\/lib\/dpkg\/lock-frontend.*; see .*\/state\/redis\/apt\.log\); another apt or dpkg run took the lock; let it finish and re-run, or raise APT_LOCK_WAIT_SECONDS$/,
    );
    // The policy file was there while apt ran, and is gone after the failure.
    expect(aptCalls()).toEqual([
      expect.stringMatching(/update -qq policy=present$/),
      expect.stringMatching(/install -y -qq --no-install-recommends redis-server redis-tools policy=present$/),
    ]);
    expect(existsSync(join(work, 'policy-rc.d'))).toBe(false);
  });

  it('leaves a policy-rc.d that was there before the install in place', () => {
    writeFileSync(join(work, 'policy-rc.d'), '#!/bin/sh\nexit 0\n');
    try {
      const run = runAsRun('apt_install_server REDIS_EXTERNAL "$STATE_DIR/redis" redis-server');
      expect(run.errorLines).toHaveLength(1);
      expect(readFileSync(join(work, 'policy-rc.d'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    } finally {
      rmSync(join(work, 'policy-rc.d'), { force: true });
    }
  });

  it('removes the policy-rc.d when the script is stopped during the install', async () => {
    writeScript(join(fakeBin, 'apt-get'), `echo "$* policy=present" >>"$FAKE_APT_CALLS"; exec sleep 30`);
    try {
      const child = spawn(
        'bash',
        [
          '-c',
          `set -euo pipefail; ROOT='${root}'; SETUP_DID=(); source infra/lib/common.sh; apt_install_server X "$STATE_DIR/x" x`,
        ],
        {
          cwd: root,
          env: {
            ...process.env,
            PATH: `${fakeBin}:${process.env.PATH}`,
            MOJAFAST_STATE_DIR: join(work, 'state'),
            APT_POLICY_RC: join(work, 'policy-rc.d'),
            APT_LOCK_FILES: join(work, 'dpkg-lock'),
            FAKE_APT_CALLS: join(work, 'apt-calls'),
          },
          stdio: 'ignore',
          detached: true,
        },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await vi.waitFor(() => expect(aptCalls()).toHaveLength(1), { timeout: 10_000 });
      expect(existsSync(join(work, 'policy-rc.d'))).toBe(true);
      // Ctrl-C in a terminal: SIGINT to the whole group (bash and the apt-get it waits for).
      if (child.pid === undefined) throw new Error('no pid');
      process.kill(-child.pid, 'SIGINT');
      expect(await exited).toBe(130);
      expect(existsSync(join(work, 'policy-rc.d'))).toBe(false);
    } finally {
      // Back to the failing fake for the other tests.
      writeScript(join(fakeBin, 'apt-get'), failingAptGet);
    }
  });
});

describe('the dpkg lock held by another process', () => {
  it('is waited for, for a bounded time, saying so; then one line names the holder', async () => {
    holder = await holdLock(30);
    const started = Date.now();
    const run = runAsRun('apt_install_server REDIS_EXTERNAL "$STATE_DIR/redis" redis-server', {
      APT_LOCK_WAIT_SECONDS: '2',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`waiting up to 2s for the apt/dpkg lock ${join(work, 'dpkg-lock')}, held by pid \\d+ \\(flock `),
    );
    expect(run.errorLines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[infra\\] ERROR: the apt/dpkg lock ${join(work, 'dpkg-lock')} is still held by pid \\d+ \\(flock .*\\) after 2s;`,
        ),
      ),
    ]);
    expect(aptCalls()).toEqual([]);
    expect(existsSync(join(work, 'policy-rc.d'))).toBe(false);
  }, 60_000);

  it('is waited for until it is released, then apt-get runs', async () => {
    holder = await holdLock(2);
    const run = runAsRun(
      'apt_install_server REDIS_EXTERNAL "$STATE_DIR/redis" redis-server; echo "after: $SETUP_DID" >&2',
      {
        APT_LOCK_WAIT_SECONDS: '30',
        FAKE_APT_OK: '1',
      },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('waiting up to 30s for the apt/dpkg lock');
    expect(run.stderr).toContain('after: redis-server installed');
    expect(aptCalls()).toHaveLength(2);
    expect(existsSync(join(work, 'policy-rc.d'))).toBe(false);
  }, 60_000);
});

describe('a step that fails without a die line of its own', () => {
  it('still ends in one line naming the command and where it ran, with its exit code', () => {
    const run = runAsRun('log "before"\nls /nonexistent-mojafast-path >/dev/null\necho "NOT REACHED"');
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain('NOT REACHED');
    expect(run.errorLines).toEqual([
      expect.stringMatching(
        /^\[infra\] ERROR: ls \/nonexistent-mojafast-path > \/dev\/null failed \(exit 2\) at bash:3$/,
      ),
    ]);
  });
});

describe('infra/svc start central-ledger with a failing npm', () => {
  it('ends in one line naming the build step and its log', () => {
    writeScript(join(fakeBin, 'npm'), 'echo "npm ERR! code E404 fake registry answer" >&2; exit 1');
    try {
      const cache = join(work, 'cache');
      const result = spawnSync(join(root, 'infra/svc'), ['start', 'central-ledger'], {
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}`, MOJAFAST_CACHE_DIR: cache },
      });
      const errorLines = result.stderr.split('\n').filter((line) => line.includes('ERROR'));
      expect(result.status).toBe(1);
      expect(errorLines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[infra\\] ERROR: central-ledger build: Node \\S+ and node-gyp \\S+ from the npm registry failed \\(exit 1: npm ERR! code E404 fake registry answer\\); see ${cache}/central-ledger-\\S+\\.logs/node\\.log$`,
          ),
        ),
      ]);
    } finally {
      rmSync(join(fakeBin, 'npm'), { force: true });
    }
  });
});

describe("the charts' folder of a checkout outside a workplace (no shared/originals beside it)", () => {
  // ./run sources the originals' build (originals.sh) before the charts' lookup (helm.sh): a default folder
  // the first assumed must not read as the user's ORIGINALS_DIR to the second, which stops on a folder
  // without helm/ instead of falling back to the cache or a clone.
  function lookUp(originalsDir?: string): ReturnType<typeof spawnSync> {
    const { ORIGINALS_DIR: _inherited, ...inherited } = process.env;
    const checkout = join(work, 'checkout');
    spawnSync('mkdir', ['-p', join(checkout, 'infra')]);
    spawnSync('cp', [
      '-R',
      join(root, 'infra/lib'),
      join(root, 'infra/originals'),
      join(root, 'infra/helm'),
      join(root, 'infra/services.env'),
      join(checkout, 'infra'),
    ]);
    return spawnSync(
      'bash',
      [
        '-c',
        `set -euo pipefail; ROOT='${checkout}'; SETUP_DID=(); source infra/lib/common.sh; source infra/originals/originals.sh; source infra/helm/helm.sh; echo "originals=[$(originals_dir || true)]"; charts=$(charts_dir); echo "charts=$charts"`,
      ],
      {
        cwd: checkout,
        encoding: 'utf8',
        timeout: 30_000,
        env: {
          ...inherited,
          MOJAFAST_STATE_DIR: join(work, 'state'),
          MOJAFAST_CACHE_DIR: join(work, 'cache'),
          ...(originalsDir === undefined ? {} : { ORIGINALS_DIR: originalsDir }),
        },
      },
    );
  }

  it('takes the charts kept in the cache when no ORIGINALS_DIR is set', () => {
    spawnSync('mkdir', ['-p', join(work, 'cache/originals/helm/account-lookup-service')]);
    const result = lookUp();
    expect(result.stderr).not.toContain('ERROR');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`originals=[]\ncharts=${join(work, 'cache/originals/helm')}\n`);
  });

  it('stops in one line when the ORIGINALS_DIR the user set has no helm/', () => {
    const result = lookUp(join(work, 'empty-originals'));
    expect(result.status).toBe(1);
    expect(
      String(result.stderr)
        .split('\n')
        .filter((line) => line.includes('ERROR')),
    ).toEqual([expect.stringMatching(/ORIGINALS_DIR=\S+empty-originals has no helm\/ folder/)]);
  });
});
