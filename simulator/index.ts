/**
 * The stand-in brokerage as a library (`<package>/simulator`), for an onboarding system's own tests:
 * start it in process, point an eca client or the engine's workers at its URL, drive its clock and
 * scenarios through its control API. Never used by the engine itself.
 */
export { ControlError, startSimulator } from './server.js';
export type { RunningSimulator, SimulatorOptions } from './server.js';
export { ecaClientFor } from './client.js';
export { SCENARIO_NAMES, isScenarioName } from './scenarios.js';
export type { ScenarioName } from './scenarios.js';
