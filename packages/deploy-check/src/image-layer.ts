import { spawn, spawnSync } from 'node:child_process';
import { cpSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Instruction, parseDockerfile, splitStages } from './dockerfile.js';

/**
 * How a service's Dockerfile makes its application layer: the build stage's `pnpm ... run build` and
 * `pnpm ... deploy ... <dir>` commands, and the final stage's COPY of that directory. Read from the file, so
 * the layer this module builds is the one the Dockerfile builds, without a Docker engine.
 */
export interface LayerRecipe {
  /** `pnpm --filter "<pkg>..." run build`: the package and its workspace dependencies, in order. */
  readonly build: readonly string[];
  /** `pnpm --filter <pkg> deploy ... <out>`. */
  readonly deploy: string;
  /** The directory the deploy writes in the build stage (its last argument). */
  readonly out: string;
  /** The final stage's `COPY --from=<build stage> <out> <dest>`. */
  readonly dest: string;
  /**
   * The final stage's `COPY infra/containers/entry/<service>/ <dest>` from the build context, when there is
   * one: the original's entry points (src/index.js …), each importing dist/, that Mojaloop's charts run.
   */
  readonly entry?: string;
}

/** The only files the final stage may take from the build context: the originals' entry points. */
const ENTRY_DIR = /^infra\/containers\/entry\/[a-z-]+\/$/;

/**
 * A RUN's command without its leading BuildKit flags (--mount=…, --network=…) and the shell prelude that
 * trusts the build secret's extra CA (`if [ -s /run/secrets/extra_ca ]; then export …; fi;`).
 */
function command(run: Instruction): string {
  return run.args.replace(/^(--\S+\s+)+/, '').replace(/^if \[[^\]]*\]; then [^;]*; fi;\s*/, '');
}

export function layerRecipe(dockerfileText: string): LayerRecipe {
  const stages = splitStages(parseDockerfile(dockerfileText)).slice(1);
  const final = stages.at(-1) ?? [];
  const buildStages = stages.slice(0, -1);
  const runs = buildStages.flat().filter((i) => i.keyword === 'RUN');
  const build = runs.map(command).filter((c) => /^pnpm .*\brun build$/.test(c));
  const deploys = runs.map(command).filter((c) => /^pnpm .*\bdeploy\b/.test(c));
  const [deploy] = deploys;
  if (deploy === undefined || deploys.length > 1) throw new Error('expected one `pnpm ... deploy` in the build stage');
  const out = deploy.split(/\s+/).at(-1) ?? '';

  const copies = final.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD');
  const [copy, ...rest] = copies;
  const match = copy && /^--from=(\S+)\s+(\S+)\s+(\S+)$/.exec(copy.args);
  // The deploy output is the application layer, beside it at most the entry points; anything else would be
  // outside this measure.
  if (!match || match[2] !== out) {
    throw new Error(`expected the final stage's first COPY to be --from=<build> ${out} <dest>`);
  }
  const dest = match[3] ?? '';
  const entries = rest.map((i) => /^(\S+)\s+(\S+)$/.exec(i.args));
  const entry = entries[0];
  if (rest.length > 1 || (rest.length === 1 && (!entry || !ENTRY_DIR.test(entry[1] ?? '') || entry[2] !== dest))) {
    throw new Error(`expected the final stage's only other COPY to be infra/containers/entry/<service>/ ${dest}`);
  }
  return { build, deploy, out, dest, ...(entry ? { entry: entry[1] as string } : {}) };
}

export interface LayerBuild {
  /** The commands run, as run (the deploy's output directory replaced by the target). */
  readonly commands: readonly string[];
}

/**
 * Runs the recipe's commands in a checkout (`root`, dependencies installed) with the deploy writing into
 * `target` (absent or empty). `build: false` skips the build commands when dist/ is already built.
 * Asynchronous: a test worker whose event loop is blocked for a minute (a slow deploy on a loaded machine)
 * loses its connection to the test runner.
 */
export async function buildLayer(
  root: string,
  recipe: LayerRecipe,
  target: string,
  options: { build: boolean },
): Promise<LayerBuild> {
  const deploy = `${recipe.deploy.slice(0, recipe.deploy.length - recipe.out.length)}${target}`;
  const commands = [...(options.build ? recipe.build : []), deploy];
  for (const line of commands) {
    // Bounded: pnpm was seen to hang instead of exiting after the registry refused its TLS (no CA for a
    // proxy), which would stall the whole suite.
    const result = await run(line, root, 180_000);
    if (result.code !== 0) {
      throw new Error(`${line} failed (${result.code ?? result.signal})${result.why}:\n${result.output}`);
    }
  }
  if (recipe.entry !== undefined) cpSync(join(root, recipe.entry), target, { recursive: true });
  return { commands };
}

/** `sh -c line` in cwd, killed after timeoutMs; its exit and its output. */
function run(
  line: string,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; why: string }> {
  return new Promise((resolve) => {
    // Its own process group, so the timeout ends pnpm too and not only the shell that started it.
    const child = spawn('sh', ['-c', line], {
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (c: Buffer) => (output += c.toString()));
    let why = '';
    const timer = setTimeout(() => {
      why = ` (killed after ${timeoutMs} ms)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => (why = ` (${error.message})`));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, why });
    });
  });
}

export interface LayerSize {
  /** `du -sb`: apparent bytes of the files, directories and links, what the layer's tar holds. */
  readonly bytes: number;
  readonly megabytes: number;
  /** Every hard link counted as a file of its own: the layer's size should the copy not keep the links. */
  readonly bytesCountingHardLinks: number;
  readonly files: number;
  /** Bytes under each top-level entry (dist, node_modules, config, …). */
  readonly topLevel: Record<string, number>;
  /** The largest installed packages (node_modules/.pnpm/<name@version>), largest first. */
  readonly largestPackages: readonly { readonly name: string; readonly bytes: number }[];
}

/**
 * Apparent bytes and file count of a tree, a link counted as its own size (not its target). `seen` counts a
 * hard-linked file once, as du does; without it every link is counted (an upper bound, should a copy not
 * keep the links).
 */
function walk(path: string, seen?: Set<number>): { bytes: number; files: number } {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) {
    if (stat.nlink > 1 && seen) {
      if (seen.has(stat.ino)) return { bytes: 0, files: 0 };
      seen.add(stat.ino);
    }
    return { bytes: stat.size, files: stat.isFile() ? 1 : 0 };
  }
  let bytes = stat.size;
  let files = 0;
  for (const entry of readdirSync(path)) {
    const child = walk(join(path, entry), seen);
    bytes += child.bytes;
    files += child.files;
  }
  return { bytes, files };
}

function duBytes(dir: string): number {
  const result = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  const bytes = Number.parseInt(result.stdout, 10);
  if (result.status !== 0 || !Number.isFinite(bytes)) throw new Error(`du -sb ${dir} failed: ${result.stderr}`);
  return bytes;
}

export function measureLayer(dir: string): LayerSize {
  const bytes = duBytes(dir);
  const seen = new Set<number>();
  const topLevel: Record<string, number> = {};
  for (const entry of readdirSync(dir).sort()) topLevel[entry] = walk(join(dir, entry), seen).bytes;
  const store = join(dir, 'node_modules/.pnpm');
  const packages = lstatSync(store, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(store)
        .filter((name) => name !== 'node_modules' && lstatSync(join(store, name)).isDirectory())
        .map((name) => ({ name, bytes: walk(join(store, name), new Set()).bytes }))
    : [];
  packages.sort((a, b) => b.bytes - a.bytes);
  return {
    bytes,
    megabytes: Math.round(bytes / 10_000) / 100,
    bytesCountingHardLinks: walk(dir).bytes,
    files: walk(dir, new Set()).files,
    topLevel,
    largestPackages: packages.slice(0, 10),
  };
}

/**
 * The deployed package and every workspace package installed beside it (node_modules/.pnpm/@mojafast+<name>@…),
 * the directories whose content comes from our own `files` fields.
 */
export function ownPackageDirs(layer: string): string[] {
  const store = join(layer, 'node_modules/.pnpm');
  const workspace = lstatSync(store, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(store)
        .filter((entry) => entry.startsWith('@mojafast+'))
        .map((entry) => {
          const name = entry.slice('@mojafast+'.length).split('@')[0] ?? '';
          return join(store, entry, 'node_modules/@mojafast', name);
        })
    : [];
  return [layer, ...workspace];
}

/** Every file under dir (relative, `/`-separated), not descending into node_modules. */
export function ownFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.name === 'node_modules') return [];
    return entry.isDirectory() ? ownFiles(dir, path) : [path];
  });
}

/** The package.json of a directory. */
export function readPackage(dir: string): {
  name: string;
  files?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}
