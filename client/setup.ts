/**
 * Namespace and search-attribute setup: the one step every Temporal server needs before the engine
 * runs on it (`eca setup`; the dev server, `npm run cluster`, compose and the docs all use it).
 *
 * Idempotent and strict: a namespace or search attribute that is missing is created; "already
 * exists" (another setup raced this one) is the only error taken as success; anything else stops
 * the setup with a `SetupError` that says what failed. The result is read back and verified: the
 * namespace exists with the retention asked for and every engine search attribute is registered
 * with its type.
 */
import { isGrpcServiceError } from '@temporalio/client';
import type { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ECA_SEARCH_ATTRIBUTES } from '../domain/search-attributes.js';
import { EngineError, InvalidInputError } from './errors.js';
import { protoDuration, protoDurationMs } from './protobuf-duration.js';
import { DAY_MS, DEFAULT_RETENTION, parseRetention } from './retention.js';

export { DEFAULT_RETENTION, parseRetention };

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** gRPC status codes the setup tells apart. */
const GRPC = { NOT_FOUND: 5, ALREADY_EXISTS: 6, UNAVAILABLE: 14 } as const;

export class SetupError extends EngineError {
  override readonly name = 'SetupError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SETUP_FAILED', message, options);
  }
}

export interface SetupOptions {
  namespace: string;
  /**
   * How long closed workflows stay in history: `30d`, `720h`, `"30 days"` or milliseconds. A namespace
   * that exists is brought to it. Absent: an existing namespace keeps its retention, a new one gets
   * DEFAULT_RETENTION.
   */
  retention?: string | number;
  /** The search attributes to register; the engine's own by default. */
  searchAttributes?: ReadonlyArray<{ name: string; type: SearchAttributeType }>;
  /** How long to wait for a namespace just created to reach every frontend (default 60 s). */
  readyTimeoutMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface SetupResult {
  namespace: string;
  /** Whether this call registered the namespace (false: it existed). */
  namespaceCreated: boolean;
  /** The retention before this call changed it, when it did. */
  retentionChangedFrom?: number;
  retentionMs: number;
  /** Search attributes this call registered (the others existed already). */
  searchAttributesCreated: string[];
  searchAttributes: string[];
}

/** The server's index type of an SDK search attribute type: the same name, prefixed. */
function indexedValueType(type: SearchAttributeType): IndexedValueType {
  return IndexedValueType[`INDEXED_VALUE_TYPE_${type}`];
}

function typeName(type: IndexedValueType | null | undefined): string {
  return (IndexedValueType[type ?? 0] ?? String(type)).replace('INDEXED_VALUE_TYPE_', '');
}

function grpcCode(error: unknown): number | undefined {
  return isGrpcServiceError(error) ? error.code : undefined;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retentionMsOf(duration: proto.google.protobuf.IDuration | null | undefined): number {
  return duration ? protoDurationMs(duration) : 0;
}

async function describeNamespace(connection: Connection, namespace: string) {
  try {
    return await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if (grpcCode(error) === GRPC.NOT_FOUND) return undefined;
    throw new SetupError(`describing namespace "${namespace}" failed: ${reason(error)}`, { cause: error });
  }
}

/**
 * Retries `attempt` while the server answers NOT_FOUND or UNAVAILABLE (a namespace registered a
 * moment ago is not yet known to every frontend and history host), up to `timeoutMs`.
 */
async function untilKnown<T>(what: string, timeoutMs: number, attempt: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await attempt();
    } catch (error) {
      const code = grpcCode(error);
      const transient = code === GRPC.NOT_FOUND || code === GRPC.UNAVAILABLE;
      if (!transient || Date.now() + wait > giveUpAt) {
        throw error instanceof SetupError
          ? error
          : new SetupError(`${what} failed: ${reason(error)}`, { cause: error });
      }
      await sleep(wait);
    }
  }
}

async function ensureNamespace(
  connection: Connection,
  namespace: string,
  wantedMs: number | undefined,
  log: (line: string) => void,
): Promise<Pick<SetupResult, 'namespaceCreated' | 'retentionChangedFrom'>> {
  const existing = await describeNamespace(connection, namespace);
  if (!existing) {
    const retentionMs = wantedMs ?? parseRetention(DEFAULT_RETENTION);
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: protoDuration(retentionMs),
        description: 'eca-onboarding: account applications, daily documents and maintenance',
      });
      log(`namespace ${namespace}: registered with a retention of ${retentionMs / DAY_MS} day(s)`);
      return { namespaceCreated: true };
    } catch (error) {
      if (grpcCode(error) !== GRPC.ALREADY_EXISTS) {
        throw new SetupError(`registering namespace "${namespace}" failed: ${reason(error)}`, { cause: error });
      }
      log(`namespace ${namespace}: registered meanwhile by another setup`);
      return { namespaceCreated: false };
    }
  }
  const current = retentionMsOf(existing.config?.workflowExecutionRetentionTtl);
  const retentionMs = wantedMs ?? current;
  if (current === retentionMs) {
    log(`namespace ${namespace}: exists, retention ${retentionMs / DAY_MS} day(s)`);
    return { namespaceCreated: false };
  }
  try {
    await connection.workflowService.updateNamespace({
      namespace,
      config: { workflowExecutionRetentionTtl: protoDuration(retentionMs) },
    });
  } catch (error) {
    throw new SetupError(
      `namespace "${namespace}" keeps closed workflows ${current / DAY_MS} day(s), not ${retentionMs / DAY_MS}, ` +
        `and changing it failed: ${reason(error)}`,
      { cause: error },
    );
  }
  log(`namespace ${namespace}: retention changed from ${current / DAY_MS} to ${retentionMs / DAY_MS} day(s)`);
  return { namespaceCreated: false, retentionChangedFrom: current };
}

async function registeredSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<Record<string, IndexedValueType>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return customAttributes ?? {};
}

/** Sets up `options.namespace` on the server behind `connection`; see the module comment. */
export async function setupNamespace(connection: Connection, options: SetupOptions): Promise<SetupResult> {
  const log = options.log ?? (() => undefined);
  const { namespace } = options;
  if (!namespace) throw new InvalidInputError('namespace', 'a namespace name is required');
  const retentionMs = options.retention === undefined ? undefined : parseRetention(options.retention);
  const wanted = new Map(
    (options.searchAttributes ?? ECA_SEARCH_ATTRIBUTES).map((key) => [key.name, indexedValueType(key.type)]),
  );
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;

  const namespaceResult = await ensureNamespace(connection, namespace, retentionMs, log);

  const registered = await untilKnown(`listing the search attributes of "${namespace}"`, readyTimeoutMs, () =>
    registeredSearchAttributes(connection, namespace),
  );
  const missing: Record<string, IndexedValueType> = {};
  for (const [name, type] of wanted) {
    const has = registered[name];
    if (has === undefined) missing[name] = type;
    else if (has !== type) {
      throw new SetupError(
        `search attribute ${name} is registered in "${namespace}" as ${typeName(has)}, the engine needs ${typeName(type)}`,
      );
    }
  }
  const created = Object.keys(missing);
  if (created.length > 0) {
    await untilKnown(`registering search attributes in "${namespace}"`, readyTimeoutMs, async () => {
      let toAdd = missing;
      // Another setup may register some of them meanwhile ("already exists"): add what is still missing.
      for (let round = 0; Object.keys(toAdd).length > 0 && round < 3; round++) {
        try {
          await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: toAdd });
          return;
        } catch (error) {
          if (grpcCode(error) !== GRPC.ALREADY_EXISTS) throw error;
        }
        const now = await registeredSearchAttributes(connection, namespace);
        toAdd = Object.fromEntries(Object.entries(toAdd).filter(([name]) => now[name] === undefined));
      }
    });
    log(`search attributes: registered ${created.join(', ')}`);
  } else {
    log(`search attributes: all ${wanted.size} registered`);
  }

  // Read back what the server now holds.
  const described = await describeNamespace(connection, namespace);
  if (!described) throw new SetupError(`namespace "${namespace}" is not found after setup`);
  const retentionNow = retentionMsOf(described.config?.workflowExecutionRetentionTtl);
  if (retentionMs !== undefined && retentionNow !== retentionMs) {
    throw new SetupError(
      `namespace "${namespace}" has a retention of ${retentionNow} ms after setup, expected ${retentionMs} ms`,
    );
  }
  const now = await untilKnown(`reading back the search attributes of "${namespace}"`, readyTimeoutMs, () =>
    registeredSearchAttributes(connection, namespace),
  );
  const wrong = [...wanted].filter(([name, type]) => now[name] !== type).map(([name]) => name);
  if (wrong.length > 0) {
    throw new SetupError(`search attributes missing or of another type after setup: ${wrong.join(', ')}`);
  }
  return {
    namespace,
    ...namespaceResult,
    retentionMs: retentionNow,
    searchAttributesCreated: created,
    searchAttributes: [...wanted.keys()],
  };
}
