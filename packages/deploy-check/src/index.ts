export { type ConfigSchema, schemaFromModule } from './config-schema.js';
export { envOf, execForm, type Instruction, parseDockerfile, splitStages } from './dockerfile.js';
export {
  buildLayer,
  type LayerRecipe,
  type LayerSize,
  layerRecipe,
  measureLayer,
  ownFiles,
  ownPackageDirs,
  readPackage,
} from './image-layer.js';
export * from './infra.js';
export { type RunningService, startService } from './process.js';
export { exportedSampleNames, metricNamesIn } from './promql.js';
export { loadSchema } from './schemas.js';
export { type Listener, type ServiceSpec, services, servicesRoot } from './services.js';
