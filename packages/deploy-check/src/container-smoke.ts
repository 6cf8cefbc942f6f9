import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterProcess } from './cluster-plan.js';
import {
  followContainer,
  imageOf,
  mainProcessIds,
  removeContainers,
  runContainer,
  runHealthcheck,
} from './containers.js';
import { type EngineName, exec, execOk } from './engine.js';
import { loadCompose } from './infra.js';
import type { ServiceSpec } from './services.js';
import type { Launched, Launcher, SmokeOptions } from './smoke.js';

/**
 * The whole-cluster smoke (smoke.ts) with our three services as containers of their images instead of local
 * processes. Kafka, MariaDB and Redis stay the host's (`infra/svc`): the containers share the host's network,
 * so the addresses cluster-plan.ts rewrites to 127.0.0.1 and free ports are the same for them.
 * - `run`: `<engine> run -d --network host` of each image with the env and command the compose file gives;
 * - `compose`: a compose file made from infra/compose/compose.yaml (our three services, their planned env,
 *   host networking, the built images) brought up by `docker compose` or `podman-compose`.
 * Both check, while the cluster runs, that each main process is not root and that the image's HEALTHCHECK
 * passes; and, at the end, that SIGTERM stopped each within its grace period with exit code 0.
 */
export interface ContainerCheck {
  readonly uid: number;
  readonly gid: number;
  readonly healthcheck: number | null;
}

const GRACE_SECONDS = 30;

export function containerNames(prefix: string) {
  const run = randomBytes(3).toString('hex');
  return (id: ServiceSpec['id']) => `${prefix}-${run}-${id}`;
}

/** The smoke's hooks for one way of running the containers, and what removes them afterwards. */
export interface ContainerLaunch {
  readonly prepare?: SmokeOptions['prepare'];
  readonly launch: Launcher;
  readonly inspect: SmokeOptions['inspect'];
  cleanup(): Promise<void>;
}

/** What smoke.ts needs to run the cluster as `<engine> run` containers, and what to remove afterwards. */
export function runLauncher(engine: EngineName): ContainerLaunch {
  const nameOf = containerNames('mojafast-smoke');
  const created: string[] = [];
  return {
    async launch({ spec, process, readyWhen, timeoutMs }) {
      const name = nameOf(spec.id);
      created.push(name);
      const container = await runContainer(engine, {
        name,
        image: imageOf(spec.id),
        env: process.env,
        command: process.command,
        readyWhen,
        timeoutMs,
      });
      return { ...container, stop: () => container.stop(GRACE_SECONDS) };
    },
    inspect: (running) => inspectContainers(engine, running),
    cleanup: () => removeContainers(engine, created),
  };
}

async function inspectContainers(
  engine: EngineName,
  running: ReadonlyMap<ServiceSpec['id'], Launched>,
): Promise<Record<string, ContainerCheck>> {
  const checks: Record<string, ContainerCheck> = {};
  for (const [id, launched] of running) {
    const { name } = launched as Launched & { name: string };
    checks[id] = { ...(await mainProcessIds(engine, name)), healthcheck: await runHealthcheck(engine, name) };
  }
  return checks;
}

/** `docker compose` when docker is the engine, else `podman-compose`; undefined with the reason when neither runs. */
export async function composeCommand(engine: EngineName): Promise<{ command: string[] } | { reason: string }> {
  if (engine === 'docker') {
    const probe = await exec('docker', ['compose', 'version']).catch((e: Error) => ({ code: -1, stderr: e.message }));
    return probe.code === 0
      ? { command: ['docker', 'compose'] }
      : { reason: `docker compose is not installed (${probe.stderr.trim().split('\n')[0]})` };
  }
  const probe = await exec('podman-compose', ['--version']).catch((e: Error) => ({ code: -1, stderr: e.message }));
  return probe.code === 0
    ? { command: ['podman-compose'] }
    : {
        reason: `podman-compose is not installed (apt-get install podman-compose): ${probe.stderr.trim().split('\n')[0]}`,
      };
}

/**
 * The compose file a compose tool runs for the smoke: infra/compose/compose.yaml's blocks of our three
 * services with their planned env (the file's, addresses rewritten), the built images, the host's network
 * (Kafka, MariaDB and Redis are the host's) and depends_on among them kept; nothing else of the file.
 */
export function smokeComposeFile(
  repoRoot: string,
  plan: readonly ClusterProcess[],
  nameOf: (id: ServiceSpec['id']) => string,
  project: string,
): Record<string, unknown> {
  const compose = loadCompose(repoRoot);
  const ours = new Set(plan.map((p) => p.composeService));
  const services: Record<string, unknown> = {};
  for (const process of plan) {
    const original = compose.services[process.composeService] ?? {};
    const dependsOn = original.depends_on ?? [];
    services[process.composeService] = {
      image: imageOf(process.spec.id),
      container_name: nameOf(process.spec.id),
      network_mode: 'host',
      environment: process.env,
      command: process.command,
      stop_grace_period: `${GRACE_SECONDS}s`,
      depends_on: (Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn)).filter((d) => ours.has(d)),
    };
  }
  return { name: project, services };
}

/**
 * podman-compose 1.0.3 (Debian 12's) adds `--net <project>_default --network-alias <service>` to every
 * `podman run`, also for a service with `network_mode: host`, which podman then refuses ("cannot set multiple
 * networks without bridge network mode"). Given as its --podman-path, this drops those two options when the
 * run asks for the host's network and runs podman with the rest.
 */
const PODMAN_HOST_NETWORK = `#!/bin/sh
case " $* " in *" --network host "*) host=1 ;; *) host=0 ;; esac
skip=0
for a in "$@"; do
  shift
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  if [ "$host" = 1 ] && { [ "$a" = --net ] || [ "$a" = --network-alias ]; }; then skip=1; continue; fi
  set -- "$@" "$a"
done
exec podman "$@"
`;

/** What smoke.ts needs to run the cluster with a compose tool: the file is brought up whole, then followed. */
export function composeLauncher(
  engine: EngineName,
  tool: readonly string[],
  repoRoot: string,
  runDir: string,
): ContainerLaunch {
  const nameOf = containerNames('mojafast-compose');
  const project = `mojafast-smoke-${randomBytes(3).toString('hex')}`;
  const file = join(runDir, 'compose.yaml');
  const [program, ...prefix] = tool as [string, ...string[]];
  const base = [...prefix, '-p', project, '-f', file];
  if (program === 'podman-compose') {
    const wrapper = join(runDir, 'podman-host-network');
    writeFileSync(wrapper, PODMAN_HOST_NETWORK, { mode: 0o755 });
    base.unshift('--podman-path', wrapper);
  }
  let planned: readonly ClusterProcess[] = [];
  return {
    async prepare(plan) {
      planned = plan;
      writeFileSync(file, stringify(smokeComposeFile(repoRoot, plan, nameOf, project)));
      await execOk(program, [...base, 'up', '-d'], { timeoutMs: 120_000 });
    },
    async launch({ spec, readyWhen, timeoutMs }) {
      const container = await followContainer(engine, nameOf(spec.id), readyWhen, timeoutMs);
      return { ...container, stop: () => container.stop(GRACE_SECONDS) };
    },
    inspect: (running) => inspectContainers(engine, running),
    async cleanup() {
      if (planned.length > 0) await exec(program, [...base, 'down'], { timeoutMs: 120_000 });
      // podman-compose creates the project's default network even when no service joins it.
      if (program === 'podman-compose') await exec('podman', ['network', 'rm', `${project}_default`]);
      await removeContainers(
        engine,
        planned.map((p) => nameOf(p.spec.id)),
      );
    },
  };
}
