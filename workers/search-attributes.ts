/**
 * The check a worker makes before it polls: the namespace holds every search attribute the engine keeps
 * on its workflows (domain/search-attributes.ts), registered by `eca setup`. Without them the first
 * workflow task that upserts one fails, and every application stalls on a retried task: the worker stops
 * at start instead, with a message that names what is missing and the command that registers it.
 */
import type { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ECA_SEARCH_ATTRIBUTES } from '../domain/search-attributes.js';
import { ConfigurationError } from '../runtime/config-error.js';

/** What the check needs of a connection: `Connection` (client) and `NativeConnection` (worker) both have it. */
export interface SearchAttributeLister {
  operatorService: {
    listSearchAttributes(request: {
      namespace: string;
    }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
  };
}

/** The namespace lacks search attributes the engine needs, or holds one of another type. */
export class SearchAttributesMissingError extends ConfigurationError {
  constructor(
    readonly namespace: string,
    /** Names missing from the namespace. */
    readonly missing: string[],
    /** Names registered with another type than the engine's, as `name (TYPE, needs TYPE)`. */
    readonly mistyped: string[] = [],
  ) {
    const problems = [
      ...(missing.length > 0 ? [`lacks the search attributes ${missing.join(', ')}`] : []),
      ...(mistyped.length > 0 ? [`holds ${mistyped.join(', ')}`] : []),
    ];
    super(
      `Temporal namespace "${namespace}" ${problems.join(' and ')}: run \`eca setup --namespace ${namespace}\` ` +
        `(or \`eca setup\` with TEMPORAL_NAMESPACE=${namespace}) against this Temporal server, then start the worker again`,
    );
  }
}

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** The server's index type of an SDK search attribute type (client/setup.ts registers them so). */
const indexedValueType = (type: SearchAttributeType): number => IndexedValueType[`INDEXED_VALUE_TYPE_${type}`];
const typeName = (value: unknown) =>
  (IndexedValueType[value as number] ?? String(value)).replace('INDEXED_VALUE_TYPE_', '');

/**
 * Throws SearchAttributesMissingError unless `namespace` holds each of `keys` (the engine's own by default)
 * with its type. Other errors (the server out of reach, no such namespace) are the listing's own.
 */
export async function assertSearchAttributes(
  connection: SearchAttributeLister,
  namespace: string,
  keys: ReadonlyArray<{ name: string; type: SearchAttributeType }> = ECA_SEARCH_ATTRIBUTES,
): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const registered = customAttributes ?? {};
  const missing = keys.filter((key) => registered[key.name] === undefined).map((key) => key.name);
  const mistyped = keys
    .filter((key) => registered[key.name] !== undefined && registered[key.name] !== indexedValueType(key.type))
    .map((key) => `${key.name} (${typeName(registered[key.name])}, needs ${key.type})`);
  if (missing.length > 0 || mistyped.length > 0) {
    throw new SearchAttributesMissingError(namespace, missing, mistyped);
  }
}
