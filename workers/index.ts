/**
 * The worker side of the package (`<package>/worker`): build the engine's activities from configuration
 * and host them with the bundled workflows, in a process of your own instead of `workers/main.ts`.
 *
 *   const config = loadWorkerConfig();
 *   const connection = await NativeConnection.connect(await temporalConnectionOptions(config.temporal));
 *   const worker = await createEngineWorker({ connection, activities: createEngineActivities({ ... }) });
 *
 * `createEngineWorker` runs every activity under the engine's activity interceptors (the step-failure
 * policy, the attempt's abort signal); a worker created otherwise needs `engineActivityInterceptors()` in
 * its `interceptors.activity`.
 */
export { createEngineWorker, DEFAULT_TASK_QUEUE, WORKFLOW_BUNDLE_DIR_ENV } from './engine-worker.js';
export { packageDeployment } from './engine-worker.js';
export type { EngineWorkerOptions, WorkerDeployment } from './engine-worker.js';
export { assertSearchAttributes, SearchAttributesMissingError } from './search-attributes.js';
export { createEngineActivities } from '../activities/engine.js';
export type { EngineActivityOptions } from '../activities/engine.js';
export { engineActivityInterceptors } from '../activities/interceptors.js';
export type { EngineInterceptorOptions } from '../activities/interceptors.js';
export { ConfigurationError, loadWorkerConfig } from '../runtime/config.js';
export type { WorkerConfig } from '../runtime/config.js';
export { temporalConnectionOptions } from '../runtime/temporal-connection.js';
export { createEcaClientFromConfig } from '../runtime/brokerage.js';
export { FileDocumentStore } from '../runtime/document-store.js';
export type { DocumentStore, MaintainedDocumentStore } from '../runtime/document-store.js';
export { PostgresDocumentStore } from '../runtime/document-store-postgres.js';
export { openDocumentStore } from '../runtime/document-store-location.js';
