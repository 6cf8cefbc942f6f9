/** One instruction of a Dockerfile, continuation lines joined, comments dropped. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = pending + line;
    pending = '';
    const match = /^(\S+)\s*(.*)$/.exec(full);
    if (match?.[1]) instructions.push({ keyword: match[1].toUpperCase(), args: match[2] ?? '' });
  }
  return instructions;
}

/** `ENV A=1 B=2` (the key=value form) as a record; later instructions win. */
export function envOf(instructions: readonly Instruction[], fromLastStage = true): Record<string, string> {
  const stages = splitStages(instructions);
  const scope = fromLastStage ? (stages.at(-1) ?? []) : instructions;
  const env: Record<string, string> = {};
  for (const { keyword, args } of scope) {
    if (keyword !== 'ENV') continue;
    for (const pair of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
      const [, key = '', value = ''] = pair;
      env[key] = value.replace(/^"|"$/g, '');
    }
  }
  return env;
}

/** Instructions grouped by FROM; the first group is what precedes the first FROM (global ARGs). */
export function splitStages(instructions: readonly Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  let current: Instruction[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      stages.push(current);
      current = [];
    }
    current.push(instruction);
  }
  stages.push(current);
  return stages;
}

/** The JSON array of an exec-form instruction (CMD, ENTRYPOINT, HEALTHCHECK ... CMD), or undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  const start = args.indexOf('[');
  if (start < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(args.slice(start));
    return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}
