#!/usr/bin/env node
import { alsCommand, alsUsage } from './commands/als.js';
import { httpCommand, httpUsage } from './commands/http.js';
import { positionCommand, positionUsage } from './commands/position.js';
import { reportCommand, reportUsage } from './commands/report.js';
import { switchCommand, switchUsage } from './commands/switch.js';

const usage = `mojafast-bench <command> [options]
  als        ALS discovery end to end (GET /parties through the PUT callback)
  position   position topic replay
  switch     the whole switch: lookup then transfer, the originals beside ours, cores per 1,000 transfers/s
  http       plain HTTP load on any endpoint
  report     figure tables of the measured/ and docs/ pages rendered from result files (--check: fail when they differ)

${alsUsage}

${positionUsage}

${httpUsage}

${switchUsage}

${reportUsage}`;

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  http: httpCommand,
  als: alsCommand,
  position: positionCommand,
  report: reportCommand,
  switch: switchCommand,
};

const [name = '', ...rest] = process.argv.slice(2);
const command = commands[name];
if (!command) {
  process.stderr.write(`${usage}\n`);
  process.exitCode = 2;
} else {
  command(rest).catch((error: unknown) => {
    process.stderr.write(`bench ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
