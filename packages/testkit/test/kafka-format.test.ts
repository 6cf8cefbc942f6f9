import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

// infra/kafka/kafka.sh formats KRaft storage with a random cluster id; Kafka's storage tool takes an id that
// starts with '-' for an option and stops ("expected one argument"), which a random id does one time in 64.
// Here the random source's first draw is forced to give such an id, in a storage directory of the test's own,
// with the jars the running broker uses: the format step must draw again and format.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const stateDir = process.env.MOJAFAST_STATE_DIR ?? join(root, '.infra');
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kafka-format-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Sources kafka.sh as infra/svc does, on a storage directory under `work`, then runs SCRIPT; bounded. */
function inKafkaShell(script: string) {
  const kafkaVersion = /^KAFKA_VERSION=(.*)$/m.exec(readFileSync(join(root, 'infra/services.env'), 'utf8'))?.[1];
  const libs = join(stateDir, 'kafka', `libs-${kafkaVersion}`);
  if (!existsSync(libs)) throw new Error(`no Kafka jars at ${libs}: infra/svc start fetches them`);
  const result = spawnSync(
    'bash',
    [
      '-c',
      `set -euo pipefail; ROOT='${root}'; source infra/lib/common.sh; source infra/kafka/kafka.sh
KAFKA_LIBS='${libs}'; kafka_use plain; K_DIR='${join(work, 'kafka')}'; mkdir -p "$K_DIR/logs"; kafka_write_config
# The first 16 random bytes base64-encode to an id that starts with '-' (0xf8 -> '+', made '-').
head() {
  echo draw >>'${join(work, 'draws')}'
  if [[ ! -e '${join(work, 'forced')}' ]]; then : >'${join(work, 'forced')}'; printf '\\370\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377'
  else command head "$@"; fi
}
${script}`,
    ],
    { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, MOJAFAST_STATE_DIR: join(work, 'state') } },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

it("the storage tool refuses a cluster id that starts with '-' (the defect the format step avoids)", () => {
  const r = inKafkaShell(
    `"\${K_JAVA[@]}" kafka.tools.StorageTool format -t "$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d =)" -c "$K_DIR/server.properties"`,
  );
  expect(r.status, r.output).not.toBe(0);
  expect(r.output).toMatch(/expected one argument/);
  expect(existsSync(join(work, 'kafka', 'data', 'meta.properties'))).toBe(false);
}, 150_000);

it("formats the storage when the first random id starts with '-': it draws again", () => {
  rmSync(join(work, 'forced'), { force: true });
  rmSync(join(work, 'draws'), { force: true });
  const r = inKafkaShell('kafka_server_format');
  expect(r.status, `${r.output}\n${readFileSync(join(work, 'kafka', 'logs', 'format.log'), 'utf8')}`).toBe(0);
  expect(readFileSync(join(work, 'draws'), 'utf8').trim().split('\n')).toHaveLength(2);
  const meta = readFileSync(join(work, 'kafka', 'data', 'meta.properties'), 'utf8');
  expect(meta).toMatch(/^cluster\.id=[A-Za-z0-9_][A-Za-z0-9_-]{21}$/m);
}, 150_000);
