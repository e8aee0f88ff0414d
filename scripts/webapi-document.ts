/**
 * The Web API's OpenAPI document ("IB REST API") against the engine's typed shapes (webapi/): every field a
 * zod schema of the engine reads or writes is looked up in the document's schema of the same thing, with its
 * type, and every operation the client calls in the document's paths, with its security policy.
 *
 * `npm run webapi:document -- <document.json>` keeps the part of a full document the checks walk in
 * test/fixtures/webapi/ib-rest-api.subset.json (schemas without their descriptions and examples, the paths the
 * client calls); test/unit/webapi/document.test.ts checks the shapes against that file, so a new copy of the
 * document shows, by the test's failures, where the engine's shapes part from it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  AccountManagementRequestsPayload,
  AccountStatusBulkResponse,
  AccountStatusResponse,
  ApplicationLookupResponse,
  ApplicationPayload,
  BrowserSessionResponse,
  CreateBrowserSessionRequest,
  EchoResponse,
  EnumerationResponse,
  PendingTasksResponse,
  ProcessDocumentsPayload,
  RequestDetailsResponse,
  StatusResponse,
  TokenResponse,
  WEBAPI_ENUMERATION_TYPES,
} from '../webapi/index.js';

export interface DocumentSchema {
  type?: string;
  $ref?: string;
  properties?: Record<string, DocumentSchema>;
  items?: DocumentSchema;
  required?: string[];
  enum?: unknown[];
  allOf?: DocumentSchema[];
  oneOf?: DocumentSchema[];
}

export interface WebApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, { 'x-ib-gateway-security-policy'?: string }>>;
  components: { schemas: Record<string, DocumentSchema> };
}

/**
 * Each engine shape and the document's schema (or schemas, for an answer that is one of several) of it; `body`
 * when the engine writes it (a field it always sends is no difference from one the document marks optional).
 */
export const SHAPES: ReadonlyArray<{ name: string; schema: z.ZodType; document: string[]; body?: true }> = [
  { name: 'TokenResponse', schema: TokenResponse, document: ['TokenResponse'] },
  { name: 'EchoResponse', schema: EchoResponse, document: ['EchoResponse'] },
  { name: 'AccountStatusResponse', schema: AccountStatusResponse, document: ['AccountStatusResponse'] },
  { name: 'PendingTasksResponse', schema: PendingTasksResponse, document: ['PendingTasksResponse'] },
  { name: 'AccountStatusBulkResponse', schema: AccountStatusBulkResponse, document: ['AccountStatusBulkResponse'] },
  { name: 'StatusResponse', schema: StatusResponse, document: ['StatusResponse'] },
  {
    name: 'ApplicationLookupResponse',
    schema: ApplicationLookupResponse,
    document: ['FileDetailsResponse', 'ResponseFileResponse'],
  },
  { name: 'RequestDetailsResponse', schema: RequestDetailsResponse, document: ['RequestDetailsResponse'] },
  { name: 'BrowserSessionResponse', schema: BrowserSessionResponse, document: ['CreateBrowserSessionResponse'] },
  { name: 'EnumerationResponse', schema: EnumerationResponse, document: ['EnumerationResponse'] },
  { name: 'ApplicationPayload', schema: ApplicationPayload, document: ['ApplicationPayload'], body: true },
  {
    name: 'AccountManagementRequestsPayload',
    schema: AccountManagementRequestsPayload,
    document: ['AccountManagementRequestsPayload'],
    body: true,
  },
  {
    name: 'ProcessDocumentsPayload',
    schema: ProcessDocumentsPayload,
    document: ['ProcessDocumentsPayload'],
    body: true,
  },
  {
    name: 'CreateBrowserSessionRequest',
    schema: CreateBrowserSessionRequest,
    document: ['CreateBrowserSessionRequest'],
    body: true,
  },
];

/** Every operation the client calls: its method, the document's path, and whether its body is signed. */
export const OPERATIONS: ReadonlyArray<{ method: string; path: string; signed: boolean }> = [
  { method: 'post', path: '/oauth2/api/v1/token', signed: false },
  { method: 'get', path: '/gw/api/v1/echo/https', signed: false },
  { method: 'post', path: '/gw/api/v1/echo/signed-jwt', signed: true },
  { method: 'get', path: '/gw/api/v1/accounts/{accountId}/status', signed: false },
  { method: 'get', path: '/gw/api/v1/accounts/{accountId}/tasks', signed: false },
  { method: 'get', path: '/gw/api/v1/accounts/status', signed: false },
  { method: 'post', path: '/gw/api/v1/accounts', signed: true },
  { method: 'get', path: '/gw/api/v1/accounts', signed: false },
  { method: 'patch', path: '/gw/api/v1/accounts', signed: true },
  { method: 'get', path: '/gw/api/v1/requests', signed: false },
  { method: 'post', path: '/gw/api/v1/accounts/documents', signed: true },
  { method: 'post', path: '/gw/api/v1/sso-browser-sessions', signed: true },
  { method: 'get', path: '/gw/api/v1/enumerations/{enumerationType}', signed: false },
];

interface Walk {
  document: WebApiDocument;
  findings: string[];
  /** The document's schemas the walk read, by name. */
  visited: Set<string>;
  /** Whether the shape walked is an answer: a field it requires and the document does not is a finding. */
  answer: boolean;
}

function resolved(walk: Walk, schema: DocumentSchema): DocumentSchema {
  if (schema.$ref === undefined) {
    const parts = [...(schema.allOf ?? [])].map((part) => resolved(walk, part));
    if (parts.length === 0) return schema;
    return {
      ...schema,
      type: 'object',
      properties: Object.fromEntries([schema, ...parts].flatMap((part) => Object.entries(part.properties ?? {}))),
    };
  }
  const name = schema.$ref.replace('#/components/schemas/', '');
  walk.visited.add(name);
  const target = walk.document.components.schemas[name];
  return target ? resolved(walk, target) : {};
}

/** The zod schema under its wrappers (optional, nullable, default), and whether one of them was optional. */
function unwrapped(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  for (;;) {
    const def = inner.def as { type: string; innerType?: z.ZodType };
    if (!['optional', 'nullable', 'default', 'prefault'].includes(def.type) || !def.innerType) break;
    if (def.type === 'optional' || def.type === 'default') optional = true;
    inner = def.innerType;
  }
  return { inner, optional };
}

const DOCUMENT_TYPES: Record<string, string[]> = {
  string: ['string'],
  number: ['integer', 'number'],
  boolean: ['boolean'],
  array: ['array'],
  object: ['object'],
  record: ['object'],
  enum: ['string'],
};

/** Compares one engine shape with the document's candidates at `path`; what parts is added to the findings. */
function compare(walk: Walk, schema: z.ZodType, candidates: DocumentSchema[], path: string): void {
  const { inner } = unwrapped(schema);
  const def = inner.def as {
    type: string;
    shape?: Record<string, z.ZodType>;
    element?: z.ZodType;
    entries?: Record<string, string>;
  };
  const documents = candidates.map((candidate) => resolved(walk, candidate));
  const expected = DOCUMENT_TYPES[def.type];
  if (!expected) return;
  const typed = documents.filter((document) => document.type !== undefined || document.properties !== undefined);
  const types = typed.map((document) => document.type ?? 'object');
  if (typed.length > 0 && !types.some((type) => expected.includes(type))) {
    walk.findings.push(`type ${path}: the engine's ${def.type}, the document's ${types.join(' | ')}`);
    return;
  }
  if (def.type === 'enum' && def.entries) {
    const allowed = new Set(documents.flatMap((document) => document.enum ?? []));
    const extra = Object.values(def.entries).filter((value) => allowed.size > 0 && !allowed.has(value));
    if (extra.length > 0) walk.findings.push(`enum ${path}: ${extra.join(', ')} not in the document`);
  }
  if (def.type === 'array' && def.element) {
    const items = documents.flatMap((document) => (document.items ? [document.items] : []));
    compare(walk, def.element, items, `${path}[]`);
  }
  if (def.type === 'object' && def.shape) {
    for (const [key, field] of Object.entries(def.shape)) {
      const found = documents.flatMap((document) => (document.properties?.[key] ? [document.properties[key]] : []));
      const at = path === '' ? key : `${path}.${key}`;
      if (found.length === 0) {
        walk.findings.push(`missing ${at}`);
        continue;
      }
      const required = documents.some((document) => document.required?.includes(key));
      if (walk.answer && !unwrapped(field).optional && !required) walk.findings.push(`required ${at}`);
      compare(walk, field, found, at);
    }
  }
}

/** Where the engine's shapes and operations part from the document, one line each (sorted). */
export function differences(document: WebApiDocument): { findings: string[]; visited: Set<string> } {
  const walk: Walk = { document, findings: [], visited: new Set(), answer: true };
  for (const shape of SHAPES) {
    walk.answer = shape.body !== true;
    compare(
      walk,
      shape.schema,
      shape.document.map((name) => ({ $ref: `#/components/schemas/${name}` })),
      shape.name,
    );
  }
  for (const { method, path, signed } of OPERATIONS) {
    const operation = document.paths[path]?.[method];
    if (!operation) {
      walk.findings.push(`operation ${method.toUpperCase()} ${path}: not in the document`);
      continue;
    }
    const policy = operation['x-ib-gateway-security-policy'];
    if (policy !== undefined && (policy === 'SIGNED_JWT') !== signed) {
      walk.findings.push(`operation ${method.toUpperCase()} ${path}: the document's policy ${policy}`);
    }
  }
  // The enumeration types the client asks for are the document's.
  walk.visited.add('EnumerationType');
  const types = document.components.schemas.EnumerationType?.enum ?? [];
  for (const type of WEBAPI_ENUMERATION_TYPES) {
    if (!types.includes(type)) walk.findings.push(`enumeration type ${type}: not in the document`);
  }
  return { findings: walk.findings.sort(), visited: walk.visited };
}

/** What of a schema the checks read: its types and structure, without descriptions or examples. */
function bare(schema: DocumentSchema): DocumentSchema {
  const keep: DocumentSchema = {};
  if (schema.type !== undefined) keep.type = schema.type;
  if (schema.$ref !== undefined) keep.$ref = schema.$ref;
  if (schema.required !== undefined) keep.required = schema.required;
  if (schema.enum !== undefined) keep.enum = schema.enum;
  if (schema.items !== undefined) keep.items = bare(schema.items);
  if (schema.allOf !== undefined) keep.allOf = schema.allOf.map(bare);
  if (schema.properties !== undefined) {
    keep.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, bare(value)]));
  }
  return keep;
}

/** The part of a full document the checks walk. */
export function subsetOf(document: WebApiDocument): WebApiDocument {
  const { visited } = differences(document);
  const schemas = Object.fromEntries(
    [...visited].sort().flatMap((name) => {
      const schema = document.components.schemas[name];
      return schema ? [[name, bare(schema)]] : [];
    }),
  );
  const paths: WebApiDocument['paths'] = {};
  for (const { method, path } of OPERATIONS) {
    const operation = document.paths[path]?.[method];
    if (!operation) continue;
    const policy = operation['x-ib-gateway-security-policy'];
    (paths[path] ??= {})[method] = policy === undefined ? {} : { 'x-ib-gateway-security-policy': policy };
  }
  return { info: { title: document.info.title, version: document.info.version }, paths, components: { schemas } };
}

export const SUBSET_FILE = fileURLToPath(new URL('../test/fixtures/webapi/ib-rest-api.subset.json', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const source = process.argv[2];
  if (!source) {
    console.error('usage: npm run webapi:document -- <the Web API OpenAPI document, JSON>');
    process.exit(2);
  }
  const document = JSON.parse(await readFile(source, 'utf8')) as WebApiDocument;
  const subset = subsetOf(document);
  await writeFile(SUBSET_FILE, `${JSON.stringify(subset, null, 2)}\n`);
  const { findings } = differences(subset);
  console.log(
    `${document.info.title} ${document.info.version}: ${Object.keys(subset.components.schemas).length} schemas, ` +
      `${Object.keys(subset.paths).length} paths kept in ${SUBSET_FILE}; ${findings.length} difference(s):`,
  );
  for (const finding of findings) console.log(`  ${finding}`);
}
