// clinic asks whether it may send usage statistics before it profiles; without a terminal (CI, scripts,
// tools that capture output) the question never resolves and clinic exits at once with status 0 having
// written nothing (docs/profiling.md). Storing the answer beforehand, where clinic's
// `insight` package keeps it, makes `clinic flame -- node dist/...` work as written. Idempotent.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const dir = join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'insight-nodejs');
const file = join(dir, 'insight-clinic.json');
if (!existsSync(file)) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ optOut: true })}\n`);
}
