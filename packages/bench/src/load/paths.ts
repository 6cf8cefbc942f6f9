import { fileURLToPath } from 'node:url';

/** Built entry points of the services, found from this package's own location in the workspace. */
export const entryPoints = {
  sim: fileURLToPath(new URL('../../../sim/dist/sim.js', import.meta.url)),
  als: fileURLToPath(new URL('../../../als/dist/als.js', import.meta.url)),
  position: fileURLToPath(new URL('../../../position-handler/dist/position.js', import.meta.url)),
} as const;
