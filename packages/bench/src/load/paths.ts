import { fileURLToPath } from 'node:url';

/** Built entry points of the services, found from this package's own location in the workspace. */
export const entryPoints = {
  sim: fileURLToPath(new URL('../../../sim/dist/sim.js', import.meta.url)),
  als: fileURLToPath(new URL('../../../als/dist/als.js', import.meta.url)),
  position: fileURLToPath(new URL('../../../position-handler/dist/position.js', import.meta.url)),
  /** bench:position's Kafka-only floor; from dist/ also when this module runs from src/ under vitest. */
  positionPassthrough: fileURLToPath(new URL('../../dist/position/passthrough-process.js', import.meta.url)),
} as const;

/** Where infra/svc keeps pid files and data (infra/lib/common.sh: MOJAFAST_STATE_DIR or <repo>/.infra). */
export const stateDir = process.env.MOJAFAST_STATE_DIR ?? fileURLToPath(new URL('../../../../.infra', import.meta.url));
