/** The bench's command-line options (see scripts/bench.ts), read once when the bench starts. */
import { parseArgs } from 'node:util';
import { parseDurationMs } from '../../client/errors.js';
import { loadWorkerConfig } from '../../runtime/config.js';

/** The worker process's configuration defaults: the bench measures what a deployment gets. */
export const CONFIG_DEFAULTS = loadWorkerConfig({});

export const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100,1000' },
    waiting: { type: 'string', default: '1000' },
    ceiling: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '200' },
    'time-scale': { type: 'string', default: '200000' },
    poll: { type: 'string', default: '1s' },
    slots: { type: 'string', default: '3' },
    'sweep-slot': { type: 'string', default: '10s' },
    api: { type: 'string', default: '300' },
    events: { type: 'string', default: '1000' },
    polite: { type: 'string', default: '' },
    'sweep-scale': { type: 'string', default: '10000,30000' },
    'worker-alone': { type: 'string', default: '' },
    'alone-db': { type: 'string', default: 'postgres' },
    keys: { type: 'string', default: 'ecc' },
    'crypto-threads': { type: 'string', default: String(CONFIG_DEFAULTS.worker.cryptoThreads) },
    'calls-per-second': { type: 'string', default: '10' },
    firms: { type: 'string', default: '' },
    'firm-applications': { type: 'string', default: '20' },
    'api-reads': { type: 'string', default: '1000' },
    'api-read-concurrency': { type: 'string', default: '10' },
    'batch-window': { type: 'string', default: String(CONFIG_DEFAULTS.polling.batchWindowMs) },
    'max-cached': { type: 'string', default: String(CONFIG_DEFAULTS.worker.maxCachedWorkflows) },
    'wft-slots': { type: 'string' },
    'activity-slots': { type: 'string' },
    'wf-threads': { type: 'string' },
    db: { type: 'string', default: 'memory' },
    'sqlite-pragma': { type: 'string', multiple: true, default: [] },
    label: { type: 'string', default: 'default settings' },
  },
});

const list = (text: string) => text.split(',').filter(Boolean).map(Number);
export const SIZES = list(values.n);
export const WAITING = list(values.waiting);
export const CEILING = Number(values.ceiling);
export const CONCURRENCY = Number(values.concurrency);
export const TIME_SCALE = Number(values['time-scale']);
export const POLL = values.poll;
export const SLOTS = Number(values.slots);
export const BATCH_WINDOW_MS = Number(values['batch-window']);
export const SWEEP_SLOT_MS = parseDurationMs(values['sweep-slot'], '--sweep-slot', '"10s"');
export const WARM_UP = 20;
/** Threads for the engine's OpenPGP work (the worker's WORKER_CRYPTO_THREADS; 0: on the event loop). */
export const CRYPTO_THREADS = Number(values['crypto-threads']);
/** The onboarding API phase: applications started on each side, reads of them, reads in flight. */
export const API_SIZES = list(values.api).filter((n) => n > 0);
/** The events phase: applications whose events a webhook endpoint receives ('' skips it). */
export const EVENT_SIZES = list(values.events).filter((n) => n > 0);
export const API_READS = Number(values['api-reads']);
/** The sweep-at-scale phase: accounts waited on, seeded, for each measured size ('' skips it). */
export const SWEEP_SCALE_SIZES = list(values['sweep-scale']).filter((n) => n > 0);
/** The worker-alone phase: applications waiting on a worker process of its own ('' skips it). */
export const WORKER_ALONE_SIZES = list(values['worker-alone']).filter((n) => n > 0);
/** Its database: `postgres` (a server from the machine's packages, when installed) or `embedded` (PGlite). */
export const ALONE_DB = values['alone-db'];
if (ALONE_DB !== 'postgres' && ALONE_DB !== 'embedded')
  throw new Error(`--alone-db: postgres or embedded, not ${ALONE_DB}`);
/** The politeness phase: applications started at once under a call budget of `--calls-per-second` ('' skips it). */
export const POLITE_SIZES = list(values.polite).filter((n) => n > 0);
export const CALLS_PER_SECOND = Number(values['calls-per-second']);
/**
 * The many-firms phase: N firms served by one worker, each with a budget of `--calls-per-second` and held
 * to it by the simulator ('' skips it); `--firm-applications` M applications of each firm.
 */
export const FIRM_COUNTS = list(values.firms).filter((n) => n > 0);
export const FIRM_APPLICATIONS = Number(values['firm-applications']);
if (!(Number.isInteger(FIRM_APPLICATIONS) && FIRM_APPLICATIONS > 0))
  throw new Error(`--firm-applications: a whole number above 0, not ${values['firm-applications']}`);
/** The firm's and the brokerage's keys: curve25519 (`ecc`) or RSA 4096 (`rsa`), made by the simulator. */
export const KEYS = ({ ecc: 'curve25519', rsa: 'rsa4096' } as const)[values.keys as 'ecc' | 'rsa'];
if (!KEYS) throw new Error(`--keys: expected ecc or rsa, got ${values.keys}`);
export const API_READ_CONCURRENCY = Number(values['api-read-concurrency']);
