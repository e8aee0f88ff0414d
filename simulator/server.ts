/**
 * `startSimulator`: the stand-in brokerage as an HTTP server (fastify), with its state, clock,
 * scenarios, faults and control API. The CLI (simulator/main.ts) and the tests both start it here.
 */
import { OPERATION_PATHS as ECA_OPERATION_PATHS } from '../eca/web-client/index.js';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import Fastify from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SimClock } from './clock.js';
import { ControlError, SimulatorControl } from './control.js';
import { CallCounts, Faults, type FaultRule } from './faults.js';
import { timestamp } from './formats/wire-text.js';
import { FirmKeyCache, loadOrCreateKeys } from './keys.js';
import { REPEATED_EXTERNAL_ID_ANSWERS } from './model.js';
import type { FirmRecord, FirmType, RepeatedExternalId } from './model.js';
import { RequestRefused, type Operation, type OperationContext, type SimulatorEnv } from './operations/context.js';
import { OPERATIONS } from './operations/index.js';
import { mountPortal } from './operations/sso.js';
import { ensureDir, readSnapshot, SnapshotWriter } from './persistence.js';
import { registerControlRoutes } from './control-routes.js';
import type { WebApiAuthority } from './webapi/authority.js';
import { mountWebApi } from './webapi/routes.js';
import { DEFAULT_TIMINGS, isScenarioName, type ScenarioName, type Timings } from './scenarios.js';
import { SsoSessions } from './sso-sessions.js';
import { parseListingLag } from './listing-lag.js';
import type { ListingLagSettings } from './listing-lag.js';
import { Store } from './store.js';
import { parseUnpromised } from './unpromised.js';
import type { Unpromised } from './unpromised.js';
import type { RateCapSettings } from './rate-cap.js';
import type { KeyAlgorithm } from './crypto.js';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback unless told otherwise. */
  host?: string;
  /**
   * The address its clients reach it at (`http://simulator:8090` behind a container's name, or a proxy's
   * `https://` one): what names its token endpoint, so an assertion's `aud` is checked against it. The URL it
   * listens on unless set; only its origin counts.
   */
  publicUrl?: string;
  /** Keeps state and keys here across restarts; in memory only when absent. */
  dataDir?: string;
  /** Where to write the key files when there is no data dir (the CLI uses a temporary directory). */
  keysDir?: string;
  /** Simulated time runs this many times faster than real time. */
  timeScale?: number;
  /** Simulated start time on a first start (ignored when a data dir holds a clock). */
  startTime?: Date | number | string;
  env?: SimulatorEnv;
  defaultScenario?: ScenarioName;
  timings?: Partial<Timings>;
  /** The demo firm registered on first start. */
  firm?: { csid?: string; name?: string; firmType?: FirmType };
  /** What create does with an external id it already made an account for; `second-account` unless told. */
  repeatedExternalId?: RepeatedExternalId;
  /** Readings the spec does not promise that the simulator breaks (unpromised.ts; `all` for every one); none unless set. */
  unpromised?: readonly string[];
  /** How late look-ups list a processed write, per operation (listing-lag.ts); none unless set. */
  listingLag?: ListingLagSettings;
  /** The algorithm of the keys made on a first start (kept keys are read as they are); curve25519 unless told. */
  keyAlgorithm?: KeyAlgorithm;
  /** Refuse calls past these counts a second of real time (in all, per operation, per firm) with 429 (rate-cap.ts). */
  rateCap?: RateCapSettings;
  /** Honour X-Forwarded-For for the portal's IP checks (behind a proxy). */
  trustProxy?: boolean;
  /** Operational messages (never payloads, keys or personal data); silent by default. */
  log?: (line: string) => void;
}

export interface RunningSimulator {
  /** `{base_url}`: operations are at `${url}/ws/eca/<op>` and `${url}/ws/sso/create`. */
  url: string;
  /** `{preference_url}`: preference/set is at `${preferenceUrl}/preference/set`. */
  preferenceUrl: string;
  /** The hosted portal that SSO URLs point to. */
  portalUrl: string;
  /** Control API base (`${url}/_sim`). */
  controlUrl: string;
  csid: string;
  firm: { csid: string; name: string; masterAccount: string; firmType: FirmType };
  env: SimulatorEnv;
  /** Armored keys for the firm side of the envelope. */
  keys: { firmPrivateKey: string; firmPublicKey: string; brokeragePublicKey: string };
  /** Directory holding the `.asc` key files, when they were written. */
  keysDir: string | undefined;
  dataDir: string | undefined;
  control: SimulatorControl;
  /** The Web API's authorization server (its registered clients, tokens and signed bodies). */
  webapi: WebApiAuthority;
  close(): Promise<void>;
}

const PREFERENCE_BASE = '/pref';

/**
 * Operation name (as the spec names it, which is how faults and call counts are keyed) → path served:
 * the client's paths, with preference/set under the separate preference base.
 */
export const OPERATION_PATHS: Record<string, string> = Object.fromEntries(
  Object.entries(ECA_OPERATION_PATHS).map(([operation, path]) => {
    if (operation === 'ssoCreate') return ['sso/create', path];
    if (operation === 'preferenceSet') return ['preference/set', `${PREFERENCE_BASE}${path}`];
    return [operation, path];
  }),
);

function startEpochMs(start: SimulatorOptions['startTime']): number | undefined {
  if (start === undefined) return undefined;
  const ms = start instanceof Date ? start.getTime() : typeof start === 'number' ? start : Date.parse(start);
  if (Number.isNaN(ms)) throw new RangeError('startTime is not a valid date');
  return ms;
}

/** The origin of the address the simulator is told it is reached at: an http(s) URL without credentials. */
function publicOrigin(publicUrl: string): string {
  if (!URL.canParse(publicUrl)) throw new RangeError('publicUrl must be a URL');
  const parsed = new URL(publicUrl);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new RangeError('publicUrl must be http(s)');
  if (parsed.username !== '' || parsed.password !== '') throw new RangeError('publicUrl must hold no credentials');
  return parsed.origin;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function newCsid(): string {
  return `CSID-${randomBytes(6).toString('hex').toUpperCase()}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

interface OpenedState {
  clock: SimClock;
  store: Store;
  keys: Awaited<ReturnType<typeof loadOrCreateKeys>>;
  demo: FirmRecord;
  writer: SnapshotWriter | undefined;
  dataDir: string | undefined;
  keysDir: string | undefined;
}

/** The clock, store and keys: restored from the data dir when there is one, with the demo firm registered. */
async function openState(
  options: SimulatorOptions,
  defaultScenario: ScenarioName,
  log: (line: string) => void,
): Promise<OpenedState> {
  const timings: Timings = { ...DEFAULT_TIMINGS, ...options.timings };
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const keysDir = dataDir ?? (options.keysDir === undefined ? undefined : resolve(options.keysDir));
  if (dataDir) await ensureDir(dataDir);
  if (keysDir) await ensureDir(keysDir);

  const snapshot = dataDir ? await readSnapshot(dataDir) : undefined;
  const clock = snapshot
    ? SimClock.restore(snapshot.clock, options.timeScale === undefined ? {} : { timeScale: options.timeScale })
    : new SimClock({ start: startEpochMs(options.startTime), timeScale: options.timeScale ?? 1 });

  let writer: SnapshotWriter | undefined;
  const store = new Store(clock, timings, defaultScenario, () => writer?.schedule());
  if (snapshot) store.load(snapshot);
  if (dataDir) {
    writer = new SnapshotWriter(
      dataDir,
      () => store.snapshot(),
      250,
      (error) => log(`state file not written: ${(error as Error).message}`),
    );
  }

  const firmName = options.firm?.name ?? 'DemoFirm';
  const keys = await loadOrCreateKeys(keysDir, firmName, options.keyAlgorithm);
  let demo = [...store.firms.values()].find((firm) => firm.publicKey === keys.armored.firmPublicKey);
  if (!demo) {
    demo = store.addFirm({
      csid: options.firm?.csid ?? newCsid(),
      name: firmName,
      firmType: options.firm?.firmType ?? 'advisor',
      publicKey: keys.armored.firmPublicKey,
    });
  }
  // A first start writes its state at once, so that the CSID printed is the one kept.
  writer?.schedule();
  await writer?.flush();

  return { clock, store, keys, demo, writer, dataDir, keysDir };
}

/** Answers as the injected fault says; undefined for faults that do not replace the answer. */
function fail(rule: FaultRule, request: FastifyRequest, reply: FastifyReply, clock: SimClock, held: Set<Socket>) {
  switch (rule.kind) {
    case 'http500':
      return reply.code(500).type('text/html').send('<html><body><h1>500 Internal Server Error</h1></body></html>');
    case 'http503':
      return reply
        .code(503)
        .header('retry-after', '1')
        .type('text/html')
        .send('<html><body><h1>503 Service Unavailable</h1></body></html>');
    case 'malformed':
      return reply
        .code(200)
        .type('application/json')
        .send(`{"timestamp":"${timestamp(clock.now())}","result":[{"acctId":`);
    case 'drop':
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    case 'timeout': {
      reply.hijack();
      const socket = request.raw.socket;
      held.add(socket);
      const timer = setTimeout(() => socket.destroy(), rule.ms ?? 120_000);
      socket.once('close', () => {
        clearTimeout(timer);
        held.delete(socket);
      });
      return reply;
    }
    case 'latency':
    case 'lost-response':
      return undefined;
  }
}

interface RouteDeps {
  ctx: OperationContext;
  calls: CallCounts;
  faults: Faults;
  clock: SimClock;
  held: Set<Socket>;
  log: (line: string) => void;
}

/** The registered firm a call names (its body's `CSID`), counted and capped as that firm's; else undefined. */
function callerOf(ctx: OperationContext, body: unknown): string | undefined {
  const csid = typeof body === 'object' && body !== null ? (body as { CSID?: unknown }).CSID : undefined;
  return typeof csid === 'string' && ctx.store.firms.has(csid) ? csid : undefined;
}

/** The route of one operation: counted, faulted as configured, refusals answered in the service's error shape. */
function operationRoute(operation: string, handler: Operation, deps: RouteDeps) {
  const { ctx, calls, faults, clock, held, log } = deps;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    calls.record(operation);
    if (!calls.rates.admit(operation, callerOf(ctx, request.body))) {
      // Past the configured cap (off unless set): refused before any work, as a rate-limited service would.
      return reply
        .code(429)
        .header('retry-after', '1')
        .type('text/html')
        .send('<html><body><h1>429 Too Many Requests</h1></body></html>');
    }
    const decision = faults.decide(operation);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    if (decision.failure && decision.failure.kind !== 'lost-response') {
      fail(decision.failure, request, reply, clock, held);
      return reply;
    }
    try {
      const result = await handler(ctx, { body: request.body, ip: request.ip });
      if (decision.failure) {
        // lost-response: the work is done (and kept), the answer never leaves.
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
      return reply.code(result.status).send(result.body);
    } catch (error) {
      if (error instanceof RequestRefused) {
        return reply
          .code(error.status)
          .send({ timestamp: timestamp(clock.now()), isError: true, error: error.message });
      }
      log(`${operation}: internal error: ${error instanceof Error ? error.name : 'unknown'}`);
      return reply.code(500).send({ timestamp: timestamp(clock.now()), isError: true, error: 'Internal error' });
    }
  };
}

/** How the simulator answers where the spec is silent, and the address it is reached at: checked before it starts. */
function answerSettings(options: SimulatorOptions): {
  repeatedExternalId: RepeatedExternalId;
  listingLag: ListingLagSettings;
  unpromised: Set<Unpromised>;
  publicOrigin: string | undefined;
} {
  const repeatedExternalId = options.repeatedExternalId ?? 'second-account';
  if (!REPEATED_EXTERNAL_ID_ANSWERS.includes(repeatedExternalId)) {
    throw new RangeError(`repeatedExternalId must be one of ${REPEATED_EXTERNAL_ID_ANSWERS.join(', ')}`);
  }
  return {
    repeatedExternalId,
    listingLag: parseListingLag(options.listingLag ?? {}),
    unpromised: parseUnpromised(options.unpromised ?? []),
    publicOrigin: options.publicUrl === undefined ? undefined : publicOrigin(options.publicUrl),
  };
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const log = options.log ?? (() => {});
  const env = options.env ?? 'qa';
  if (env !== 'qa' && env !== 'prod') throw new RangeError('env must be qa or prod');
  const defaultScenario = options.defaultScenario ?? 'happy';
  if (!isScenarioName(defaultScenario)) throw new RangeError(`unknown scenario ${String(defaultScenario)}`);
  const settings = answerSettings(options);
  const { store, keys, demo, writer, clock, dataDir, keysDir } = await openState(options, defaultScenario, log);
  store.repeatedExternalId = settings.repeatedExternalId;
  store.listing.set(settings.listingLag);
  store.unpromised = settings.unpromised;

  const faults = new Faults();
  const calls = new CallCounts();
  if (options.rateCap) calls.rates.set(options.rateCap);
  const sso = new SsoSessions(clock);
  const control = new SimulatorControl(store, faults, calls, sso, () => writer?.flush() ?? Promise.resolve());

  const app = Fastify({
    logger: false,
    bodyLimit: 256 * 1024 * 1024,
    forceCloseConnections: true,
    trustProxy: options.trustProxy ?? false,
  });
  const held = new Set<Socket>();
  const ctx: OperationContext = {
    store,
    keys,
    firmKeys: new FirmKeyCache(),
    sso,
    env,
    portalUrl: '',
  };

  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) log(`internal error: ${error.message ?? 'unknown'}`);
    void reply.code(status).send({
      timestamp: timestamp(clock.now()),
      isError: true,
      error: status >= 500 ? 'Internal error' : error.message,
    });
  });

  for (const [operation, path] of Object.entries(OPERATION_PATHS)) {
    const handler = OPERATIONS[operation];
    if (handler) app.post(path, operationRoute(operation, handler, { ctx, calls, faults, clock, held, log }));
  }
  mountPortal(app, ctx, calls);
  registerControlRoutes(app, control, () => ({ csid: demo.csid }));
  const failWith = (rule: FaultRule, request: FastifyRequest, reply: FastifyReply) =>
    fail(rule, request, reply, clock, held);
  const portal = { sessions: sso, portalUrl: () => ctx.portalUrl };
  // Asked only once it listens: its own URL unless it was told another.
  const webapi = mountWebApi(app, store, portal, () => settings.publicOrigin ?? url, { calls, faults, fail: failWith });

  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = app.server.address() as AddressInfo;
  const url = `http://${urlHost(options.host ?? '127.0.0.1')}:${address.port}`;
  ctx.portalUrl = `${url}/portal`;

  let closing: Promise<void> | undefined;
  const closeAll = async () => {
    for (const socket of held) socket.destroy();
    await app.close();
    await writer?.flush();
  };

  return {
    url,
    preferenceUrl: `${url}${PREFERENCE_BASE}`,
    portalUrl: ctx.portalUrl,
    controlUrl: `${url}/_sim`,
    csid: demo.csid,
    firm: { csid: demo.csid, name: demo.name, masterAccount: demo.masterAccount, firmType: demo.firmType },
    env,
    keys: {
      firmPrivateKey: keys.armored.firmPrivateKey,
      firmPublicKey: keys.armored.firmPublicKey,
      brokeragePublicKey: keys.armored.brokeragePublicKey,
    },
    keysDir,
    dataDir,
    control,
    webapi,
    close: () => (closing ??= closeAll()),
  };
}

export { ControlError };
