export * from './applications.js';
export * from './connection.js';
export * from './credentials.js';
export * from './documents.js';
export * from './errors.js';
export * from './maintenance.js';
export * from './schedules.js';
export * from './sweep.js';
