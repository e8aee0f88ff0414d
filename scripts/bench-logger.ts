/**
 * `npm run bench:logger`: what a log line costs through the engine's logger (runtime/logger.ts), beside pino
 * alone, for the lines a worker writes most: the SDK's activity lines and an activity's failure with its stack.
 * Lines go to a stream that drops them, so the figures are the logger's work, not the terminal's.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createLogger, temporalLogger } from '../runtime/logger.js';

const sink = new Writable({ write: (_chunk, _encoding, done: () => void) => done() });
const meta = {
  sdkComponent: 'worker',
  activityId: '12',
  activityType: 'readAccountStatus',
  attempt: 1,
  isLocal: false,
  namespace: 'default',
  taskQueue: 'eca-onboarding',
  workflowId: 'application:CSID1:client-42',
  workflowRunId: '01a21ebc-6e7b-730c-b8d6-f01e9f9bd4d7',
  workflowType: 'accountApplication',
  durationMs: 12,
};
const LINES = 20_000;

function measure(name: string, write: () => void): void {
  for (let i = 0; i < LINES / 10; i++) write();
  const start = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) write();
  const micros = Number(process.hrtime.bigint() - start) / 1000 / LINES;
  console.log(`${name.padEnd(48)} ${micros.toFixed(1).padStart(7)} µs a line`);
}

const plain = pino({ level: 'trace' }, sink);
const engine = temporalLogger(createLogger({ name: 'bench', level: 'TRACE', format: 'json', destination: sink }));
const failure = new Error('getAccountStatus: HTTP 503 (Service Unavailable)');
measure('pino alone, an SDK activity line', () => {
  plain.debug({ ...meta }, 'Activity completed');
});
measure('engine logger, an SDK activity line', () => {
  engine.debug('Activity completed', meta);
});
measure('engine logger, an activity failure with its stack', () => {
  engine.warn('Activity failed', { ...meta, error: failure });
});
