import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup: makes sure Kafka, MySQL and Redis run (`infra/svc start` starts them all) before any test file starts, so `pnpm test`
 * works on its own as well as through ./run. On running services this only checks readiness.
 */
export default function startServices(): void {
  if (process.env.MOJAFAST_SKIP_SERVICES === '1') return;
  const svc = fileURLToPath(new URL('../../../infra/svc', import.meta.url));
  execFileSync(svc, ['start'], { stdio: 'inherit' });
}
