export { pingWorker } from './smoke.js';
