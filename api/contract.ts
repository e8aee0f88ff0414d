/**
 * The OpenAPI document as a contract generated clients live on. The routes' zod schemas give the shapes
 * (fastify-type-provider-zod); this module finishes the document @fastify/swagger builds from them:
 *
 * - **one schema per shape**: a component appears once, under its own name; only a shape whose request
 *   and response forms differ keeps a second name (`XInput`), and nothing unreferenced is kept;
 * - **strict in, open out**: request objects refuse unknown fields (the schemas say so), response objects
 *   and their enumerations are open: a release may add fields, states, event types and problem codes
 *   (`x-extensible-enum` lists the values known today);
 * - **errors as problems**: every 4xx and 5xx answer is `application/problem+json` with the `Problem` schema;
 * - **the headers every answer carries** (`X-Request-Id`, the rate limit's, `Location` on a 201,
 *   `Retry-After` on a 429, `Cache-Control` where an answer holds a secret);
 * - the roles of each operation (`x-roles`), the XML body, the event streams and one example per operation.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { PROBLEM_TYPES } from './problems.js';
import { COMPONENT_EXAMPLES, OPERATION_EXAMPLES, PARAMETER_EXAMPLES } from './examples.js';
import { HEADERS } from './contract-headers.js';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const nodeAt = (parent: Node, key: string): Node | undefined => (isNode(parent[key]) ? parent[key] : undefined);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const SCHEMA_REF = '#/components/schemas/';

/** Operations whose body may also be the application XML alone (`Content-Type: application/xml`). */
const XML_BODY_OPERATIONS = new Set(['startApplication', 'resubmitApplication']);
/** Operations that answer server-sent events with `Accept: text/event-stream`. */
const EVENT_STREAM_OPERATIONS = new Set(['listEvents', 'listApplicationEvents']);
/** Operations whose success holds a secret or a one-time value: answered with `Cache-Control: no-store`. */
const NO_STORE_OPERATIONS = new Set([
  'takeCredentials',
  'createSsoLink',
  'registerWebhook',
  'rotateWebhookSecret',
  'createApiKey',
]);

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created: `Location` names the new resource',
  '202': 'Accepted',
  '204': 'Done; no content',
};

/** The route's transform: the zod schemas to JSON Schema, and the roles that may call it as `x-roles`. */
export function contractTransform(
  args: Parameters<typeof jsonSchemaTransform>[0] & { route?: { config?: unknown } },
): ReturnType<typeof jsonSchemaTransform> {
  const transformed = jsonSchemaTransform(args);
  const config = args.route?.config as { roles?: readonly string[] } | undefined;
  if (config?.roles && !transformed.schema.hide) {
    (transformed.schema as FastifySchema & Node)['x-roles'] = [...config.roles];
  }
  return transformed;
}

/** The whole document: the components from the zod registry, then {@link finishDocument}. */
export function contractTransformObject(
  args: Parameters<typeof jsonSchemaTransformObject>[0],
): ReturnType<typeof jsonSchemaTransformObject> {
  const document = jsonSchemaTransformObject(args) as Node;
  finishDocument(document);
  return document;
}

interface Operation {
  path: string;
  method: string;
  operation: Node;
}

function operationsOf(document: Node): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(nodeAt(document, 'paths') ?? {})) {
    if (!isNode(item)) continue;
    for (const method of METHODS) {
      const operation = nodeAt(item, method);
      if (operation) found.push({ path, method, operation });
    }
  }
  return found;
}

/** Every schema in a node: `f` is called on each schema object, depth first, never following `$ref`. */
function eachSchema(schema: unknown, f: (schema: Node) => void): void {
  if (Array.isArray(schema)) return schema.forEach((entry) => eachSchema(entry, f));
  if (!isNode(schema)) return;
  f(schema);
  for (const key of ['items', 'additionalProperties', 'not', 'contains']) eachSchema(schema[key], f);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) eachSchema(schema[key], f);
  for (const key of ['properties', '$defs']) {
    const children = nodeAt(schema, key);
    if (children) Object.values(children).forEach((child) => eachSchema(child, f));
  }
}

const refName = (ref: unknown) =>
  typeof ref === 'string' && ref.startsWith(SCHEMA_REF) ? ref.slice(SCHEMA_REF.length) : undefined;

/** The component names a schema refers to, and those they refer to in turn. */
function reachable(roots: unknown[], components: Node): Set<string> {
  const seen = new Set<string>();
  const visit = (schema: unknown) =>
    eachSchema(schema, (node) => {
      const name = refName(node.$ref);
      if (name === undefined || seen.has(name)) return;
      seen.add(name);
      visit(components[name]);
    });
  roots.forEach(visit);
  return seen;
}

function mediaSchemas(holder: Node | undefined): Node[] {
  return Object.values(nodeAt(holder ?? {}, 'content') ?? {})
    .filter(isNode)
    .map((media) => nodeAt(media, 'schema'))
    .filter((schema): schema is Node => schema !== undefined);
}

function requestSchemas({ operation }: Operation): Node[] {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters.filter(isNode) : [];
  return [
    ...parameters.map((parameter) => nodeAt(parameter, 'schema')).filter((schema) => schema !== undefined),
    ...mediaSchemas(nodeAt(operation, 'requestBody')),
  ];
}

function responseSchemas({ operation }: Operation): Node[] {
  return Object.values(nodeAt(operation, 'responses') ?? {})
    .filter(isNode)
    .flatMap((response) => mediaSchemas(response));
}

/**
 * A response schema open to additions: every object says `additionalProperties: true` (generators read a
 * missing one as false: the Java client threw on a field it did not know), enumerations extensible.
 */
function open(schema: unknown): void {
  eachSchema(schema, (node) => {
    if (node.type === 'object' && node.additionalProperties === false) node.additionalProperties = true;
    if (node.type === 'object' && node.properties !== undefined) node.additionalProperties ??= true;
    if (node.type === 'string' && Array.isArray(node.enum) && node.enum.length > 1) {
      node['x-extensible-enum'] = node.enum;
      delete node.enum;
    }
  });
}

/** zod's integers, bounded to JavaScript's safe range, as 64-bit integers (a 32-bit one in Java otherwise). */
function wideIntegers(schema: unknown): void {
  eachSchema(schema, (node) => {
    if (node.type !== 'integer' || node.maximum !== Number.MAX_SAFE_INTEGER) return;
    delete node.maximum;
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    node.format = 'int64';
  });
}

/** A query value written `true` or `false`: a boolean in the document (zod reads the text). */
function realBooleans(schema: unknown): void {
  eachSchema(schema, (node) => {
    if (node['x-query-boolean'] !== true) return;
    for (const key of Object.keys(node)) if (key !== 'description') delete node[key];
    node.type = 'boolean';
  });
}

function renameRefs(node: unknown, names: Map<string, string>): void {
  eachSchema(node, (schema) => {
    const name = refName(schema.$ref);
    const renamed = name === undefined ? undefined : names.get(name);
    if (renamed !== undefined) schema.$ref = `${SCHEMA_REF}${renamed}`;
  });
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, entry: unknown) =>
    isNode(entry) ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b))) : entry,
  );

/**
 * One component per shape. The registry gives every schema twice, `X` (as answered) and `XInput` (as
 * accepted); a request-only shape keeps `X` for its input form, a shape in both keeps one name when both
 * forms are equal, and what no operation reaches is dropped.
 */
function oneSchemaPerShape(document: Node, operations: Operation[]): void {
  const components = nodeAt(nodeAt(document, 'components') ?? {}, 'schemas') ?? {};
  const inputs = reachable(operations.flatMap(requestSchemas), components);
  const outputs = reachable(operations.flatMap(responseSchemas), components);
  for (const name of outputs) open(components[name]);
  operations.flatMap(responseSchemas).forEach(open);

  const names = new Map<string, string>();
  for (const name of inputs) {
    const base = name.endsWith('Input') ? name.slice(0, -'Input'.length) : name;
    if (base !== name && !outputs.has(base)) names.set(name, base);
  }
  // Shapes in both: equal once their references are named alike (repeated: a shape holds others).
  for (let changed = true; changed;) {
    changed = false;
    for (const name of inputs) {
      const base = name.slice(0, -'Input'.length);
      if (!name.endsWith('Input') || names.has(name) || !outputs.has(base)) continue;
      const input = structuredClone(components[name]);
      renameRefs(input, names);
      if (canonical(input) === canonical(components[base])) {
        names.set(name, base);
        changed = true;
      }
    }
  }
  const kept: Node = {};
  for (const [name, schema] of Object.entries(components)) {
    if (!(inputs.has(name) || outputs.has(name)) || (names.has(name) && outputs.has(names.get(name) ?? ''))) continue;
    kept[names.get(name) ?? name] = schema;
  }
  renameRefs(Object.values(kept), names);
  // By name: the registry's order is the order modules were first imported in, which differs by entry point.
  operations.forEach(({ operation }) => renameRefs([...requestSchemas({ operation } as Operation)], names));
  (document.components as Node).schemas = Object.fromEntries(
    Object.entries(kept).sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** A problem answer of an operation, with the headers it may carry. */
function problemResponse(status: string, operation: Node, authenticated: boolean): Node {
  const titles = Object.entries(PROBLEM_TYPES)
    .filter(([, type]) => String(type.status) === status)
    .map(([code, type]) => `\`${code}\` (${type.title})`);
  const headers: Node = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  if (status === '401') headers['WWW-Authenticate'] = ref('WWWAuthenticate');
  if (authenticated && status !== '401') Object.assign(headers, rateLimitHeaders());
  if (status === '429') headers['Retry-After'] = ref('RetryAfter');
  if (takesIdempotencyKey(operation)) {
    // A problem kept for the key comes back replayed; a withheld answer names what was made.
    headers['Idempotent-Replayed'] = ref('IdempotentReplayed');
    if (status === '409') {
      headers['Retry-After'] = ref('RetryAfterInFlight');
      headers.Location = ref('LocationWithheld');
    }
  }
  return {
    description: titles.length > 0 ? `A problem: ${titles.join(', ')}` : 'A problem',
    headers,
    content: { 'application/problem+json': { schema: { $ref: `${SCHEMA_REF}Problem` } } },
  };
}

/** The answers of one operation: problems by status, the headers, the event stream, an example. */
function finishResponses(entry: Operation, components: Node): void {
  const { operation } = entry;
  const responses = nodeAt(operation, 'responses') ?? {};
  const authenticated = !(Array.isArray(operation.security) && operation.security.length === 0);
  // Every body is read before any route: too large (413) or not JSON nor XML (415).
  if (operation.requestBody) for (const status of ['413', '415']) responses[status] ??= {};
  for (const [status, response] of Object.entries(responses)) {
    if (!isNode(response)) continue;
    if (Number(status) >= 400) {
      responses[status] = problemResponse(status, operation, authenticated);
      continue;
    }
    response.description = STATUS_TEXT[status] ?? response.description;
    const headers: Node = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } };
    if (authenticated) Object.assign(headers, rateLimitHeaders());
    if (status === '201') headers.Location = { $ref: '#/components/headers/Location' };
    if (takesIdempotencyKey(operation))
      headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
    if (
      NO_STORE_OPERATIONS.has(String(operation.operationId)) ||
      EVENT_STREAM_OPERATIONS.has(String(operation.operationId))
    ) {
      headers['Cache-Control'] = { $ref: '#/components/headers/CacheControl' };
    }
    response.headers = headers;
    const content = nodeAt(response, 'content');
    const json = content && nodeAt(content, 'application/json');
    if (json) exampleOf(json, components, OPERATION_EXAMPLES[String(operation.operationId)]);
    if (content && status === '200' && EVENT_STREAM_OPERATIONS.has(String(operation.operationId))) {
      content['text/event-stream'] = {
        schema: {
          type: 'string',
          description:
            'Server-sent events: `id` is the cursor, `event` the event type, `data` a LifecycleEvent as JSON (its schema: `LifecycleEvent`).',
        },
      };
    }
  }
}

const rateLimitHeaders = (): Node =>
  Object.fromEntries(
    ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((name) => [
      name,
      { $ref: `#/components/headers/${name.replace(/-/g, '')}` },
    ]),
  );

const takesIdempotencyKey = (operation: Node) =>
  Array.isArray(operation.parameters) &&
  operation.parameters.some(
    (parameter) => isNode(parameter) && parameter.in === 'header' && parameter.name === 'idempotency-key',
  );

/** A media type's example: the first of its schema's component `examples`, or the operation's own. */
function exampleOf(media: Node, components: Node, own?: unknown): void {
  const schema = nodeAt(media, 'schema');
  const name = refName(schema?.$ref);
  const component = name === undefined ? schema : nodeAt(components, name);
  const examples = component?.examples;
  if (Array.isArray(examples) && examples.length > 0) media.example = examples[0];
  else if (own !== undefined) media.example = own;
}

function finishRequest(entry: Operation, components: Node): void {
  const { operation } = entry;
  const body = nodeAt(operation, 'requestBody');
  const content = body && nodeAt(body, 'content');
  const json = content && nodeAt(content, 'application/json');
  if (json) exampleOf(json, components);
  if (content && XML_BODY_OPERATIONS.has(String(operation.operationId))) {
    content['application/xml'] = {
      schema: {
        type: 'string',
        description: 'The application XML alone, as the `applicationXml` field would carry it.',
      },
    };
  }
  const parameters = Array.isArray(operation.parameters) ? operation.parameters.filter(isNode) : [];
  parameters.forEach((parameter) => realBooleans(parameter.schema));
  for (const parameter of parameters.filter((one) => one.in === 'path')) {
    const name = String(parameter.name);
    const scope = entry.path.split('/').slice(0, 3).join('/');
    const example = PARAMETER_EXAMPLES[`${scope}#${name}`] ?? PARAMETER_EXAMPLES[name];
    if (example !== undefined) parameter.example = example;
  }
}

/** Everything past the routes' own schemas (see the module's comment). */
export function finishDocument(document: Node): void {
  const operations = operationsOf(document);
  oneSchemaPerShape(document, operations);
  const components = document.components as Node;
  const schemas = nodeAt(components, 'schemas') ?? {};
  components.headers = HEADERS;
  wideIntegers(document.paths);
  wideIntegers(schemas);
  for (const [name, example] of Object.entries(COMPONENT_EXAMPLES)) {
    const schema = nodeAt(schemas, name);
    if (schema) schema.examples = [example];
  }
  for (const entry of operations) {
    finishRequest(entry, schemas);
    finishResponses(entry, schemas);
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Where a 201 of the route answers the resource is: its `Location` (a path on the service, or a URL). */
    location?: (body: never) => string;
  }
}

/** `Location` on every 201, from the route's `config.location` and the answer's body. */
export function installLocations(app: FastifyInstance): void {
  app.addHook('preSerialization', async (request, reply, payload) => {
    const location = request.routeOptions.config.location as ((body: unknown) => string) | undefined;
    if (reply.statusCode === 201 && location) reply.header('location', location(payload));
    return payload;
  });
}
