/** The brokerage's Account Opening and Maintenance Web Service as a typed library. */
export * from './errors.js';
export * from './crypto.js';
export * from './archive.js';
export * from './xml.js';
export * from './types.js';
export * from './landing-pages.js';
export * from './sso.js';
export * from './enumerations.js';
export * from './schemas/index.js';
export * from './web-client/index.js';
export { SecretString } from './secret.js';
