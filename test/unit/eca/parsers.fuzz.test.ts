/**
 * Property-based tests of the eca client's readers of the service's JSON answers. A local HTTP server
 * answers each query with a fuzzed body: JSON of the spec's shapes with fields removed, mistyped or
 * oversized, random JSON, random bytes or a truncated JSON text, under any status and content type, and
 * now and then a body that stalls after its first bytes.
 * Every call gives a correct parse (an answer as the spec shows it is read entry by entry) or one of the
 * library's typed errors (EcaError), never a TypeError or a RangeError, and ends in time. The exported
 * readers (response schemas, the enumeration body) get such inputs directly, at a larger budget.
 * The file operations' answers are fuzzed in answer-files.fuzz.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toBase64 } from '../../../eca/crypto.js';
import { EcaSchemaError } from '../../../eca/errors.js';
import { responseSchemas, validateResponse } from '../../../eca/schemas/index.js';
import { createEcaClient, parseEnumerationsBody } from '../../../eca/web-client/index.js';
import type { EcaClient } from '../../../eca/web-client/index.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { outcome } from './typed-outcome.js';

/** Longest a call may take before the test calls it a hang. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.nat({ max: 100_000 }).map((size) => 'A'.repeat(size)),
);
/** A value of any JSON type where the spec expects another. */
const mistyped = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, '', ' ', 'true', 'FALSE', 'yes', 'A', '2024-13-45 99:99:99'),
  fc.double(),
  text,
  fc.jsonValue({ maxDepth: 2 }),
);
const when = fc.constantFrom('2024-05-01 10:00:00', '2024-05-01 10:00:00.5', '2024-05-01', '20240501100000');
const flag = fc.constantFrom(true, false, 'true', 'false', ' True ');
const code = fc.constantFrom('A', 'N', 'O', 'C', 'P', 'R', 'X');
const accountId = fc.stringMatching(/^U\d{1,8}$/);

/** Drops, replaces (with values of other types) and adds fields of a shaped object. */
function mutated(shape: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const edits = fc.record({
    drop: fc.array(fc.nat({ max: 12 }), { maxLength: 3 }),
    replace: fc.array(fc.tuple(fc.nat({ max: 12 }), mistyped), { maxLength: 3 }),
    add: fc.dictionary(fc.string({ maxLength: 8 }), mistyped, { maxKeys: 2 }),
  });
  return fc.tuple(shape, edits).map(([value, { drop, replace, add }]) => {
    const out: Record<string, unknown> = { ...value, ...add };
    const keys = Object.keys(value);
    if (keys.length === 0) return out;
    for (const index of drop) delete out[keys[index % keys.length]!];
    for (const [index, inner] of replace) out[keys[index % keys.length]!] = inner;
    return out;
  });
}

/** An entry list of `item`s, each item either as the spec shows it or mutated. */
const list = (item: fc.Arbitrary<Record<string, unknown>>, fuzz: boolean) =>
  fc.array(fuzz ? fc.oneof(item, mutated(item)) : item, { maxLength: 4 });

const taskFields = {
  formNumber: fc.constantFrom('8001', '3024', 8001),
  formName: fc.string({ maxLength: 10 }),
  action: fc.constantFrom('to send', 'to complete', 'to sign', 'other'),
  isRequiredForTrading: flag,
  isOnlineTask: flag,
  isRequiredForApproval: flag,
  taskNumber: fc.oneof(fc.nat(), fc.constant('12')),
  state: fc.constantFrom('To Be Sent', 'Rejected: blurry', 'Received- Being Processed', 'Pending'),
};
const pendingTask = fc.record(taskFields);

/** One spec-shaped answer per query operation: the list field and the account id field of its entries. */
const QUERIES = {
  getPendingTasks: { list: 'result', id: 'acctId' },
  getRegistrationTasks: { list: 'result', id: 'acctId' },
  getAccountStatus: { list: 'status', id: 'accountId' },
  getBatchDetails: { list: 'result', id: 'Account ID' },
  getFileDetails: { list: 'result', id: 'Account ID' },
  getResponseFile: { list: 'result', id: undefined },
  getAmRequestStatus: { list: 'result', id: undefined },
} as const;
type Query = keyof typeof QUERIES;

function entryOf(operation: Query, fuzz: boolean): fc.Arbitrary<Record<string, unknown>> {
  const common = { isError: fc.constant(false), description: fc.string({ maxLength: 10 }), status: code };
  switch (operation) {
    case 'getPendingTasks':
      return fc.record({ acctId: accountId, ...common, pendingTasks: list(pendingTask, fuzz) });
    case 'getRegistrationTasks':
      return fc.record({
        acctId: accountId,
        ...common,
        dateStarted: when,
        isRegistrationTasksPresent: flag,
        registrationTasks: list(fc.record({ ...taskFields, isComplete: flag, dateComplete: when }), fuzz),
      });
    case 'getAccountStatus':
      return fc.record({ accountId, ...common, state: fc.constantFrom('Pending Approval', 'Under Review with X') });
    case 'getBatchDetails':
      return fc.record({ 'Account ID': accountId, BatchID: fc.string(), 'Date Begun': when, 'Clearing Status': code });
    case 'getFileDetails':
      return fc.record({ 'Account ID': accountId, 'Request File Name': text, 'Response File Name': text });
    case 'getResponseFile':
      return fc.record({ isProcessed: flag, timestamp: when, name: text, isError: flag, 'Clearing Status': code });
    case 'getAmRequestStatus': {
      const detail = fc.record({ RequestDetail: text, status: fc.constantFrom('PROCESSED', 'REJECTED', 'PENDING') });
      const group = fc.record({ data: list(detail, fuzz), files: fc.array(text, { maxLength: 2 }) });
      return fc.dictionary(fc.constantFrom('AbandonAccount', 'DocumentSubmission'), group, { minKeys: 1 });
    }
  }
}

/** The answer of `op` as the spec shows it; `fuzz` mutates the entries of its lists. */
function bodyOf(op: Query | 'getEnumerations' | 'preferenceSet', fuzz: boolean): fc.Arbitrary<Record<string, unknown>> {
  if (op === 'getEnumerations' || op === 'preferenceSet') {
    const csv = fc.constantFrom('currency,id\nUSD,1\n', 'a,"b\n1,2', '"', '\uFEFFa,b\n1\n', '');
    return fc.record({
      timestamp: when,
      fileData: fc.oneof(
        fc.record({ name: text, data: csv.map((value) => toBase64(Buffer.from(value))) }),
        fc.record({ data: fc.oneof(csv, text) }),
      ),
      csv: fc.option(csv, { nil: undefined }),
      result: fc.option(fc.array(fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
    });
  }
  return fc.record({ [QUERIES[op].list]: list(entryOf(op, fuzz), fuzz), timestamp: when });
}

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
  /** Sends the head and this much of the body, then holds the connection open. */
  stall?: boolean;
}

const json = (value: unknown, status = 200): Answer => ({
  status,
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify(value)),
});

/** Any answer at all: random JSON, bytes, a truncated JSON text, under any status and content type. */
const anyAnswer = (shaped: fc.Arbitrary<unknown>): fc.Arbitrary<Answer> =>
  fc.record({
    status: fc.constantFrom(200, 200, 200, 201, 204, 400, 404, 500, 503),
    contentType: fc.constantFrom('application/json', 'text/plain', 'text/html', 'application/octet-stream'),
    body: fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? '')),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      fc
        .tuple(shaped, fc.nat())
        .map(([value, cut]) => Buffer.from(JSON.stringify(value)).subarray(0, cut % 400))
        .map((bytes) => Buffer.from(bytes)),
    ),
    stall: fc.nat({ max: 9 }).map((draw) => draw === 0),
  });

describe('eca client: parsers of the JSON answers (fuzz)', function () {
  this.timeout(120_000);
  let server: Server;
  let client: EcaClient;
  /** The same client with a short timeout, for answers whose body stalls. */
  let quick: EcaClient;
  let current: EcaClient;
  let next: Answer = json({});

  before(async function () {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const length = next.body.length + (next.stall ? 100 : 0);
        response.writeHead(next.status, { 'content-type': next.contentType, 'content-length': length });
        if (next.stall) response.write(next.body);
        else response.end(next.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const options = { baseUrl: url, preferenceUrl: url, csid: 'CSID-FUZZ', retry: { limit: 0, delayMs: 1 } };
    client = createEcaClient({ ...options, timeoutMs: 5_000 });
    quick = createEcaClient({ ...options, timeoutMs: 150 });
  });
  after(async function () {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const queryCall: Record<Query | 'getEnumerations' | 'preferenceSet', () => Promise<unknown>> = {
    getPendingTasks: () => current.getPendingTasks({}),
    getRegistrationTasks: () => current.getRegistrationTasks({ getDocs: 'T' }),
    getAccountStatus: () => current.getAccountStatus({}),
    getBatchDetails: () => current.getBatchDetails({ accountIds: ['U1'] }),
    getFileDetails: () => current.getFileDetails({ accountIds: ['U1'] }),
    getResponseFile: () => current.getResponseFile({ externalId: 'EXT-1' }),
    getAmRequestStatus: () => current.getAmRequestStatus({}),
    getEnumerations: () => current.getEnumerations({ type: 'FIN_INFO_RANGES', currency: 'USD' }),
    preferenceSet: () =>
      current.preferenceSet({ customerIdentity: { userName: 'u1' }, preferences: { LANGUAGE: { LANG1: 'en' } } }),
  };

  it('reads any answer of a query as a correct parse or a typed error', async function () {
    const operation = fc.constantFrom(...(Object.keys(queryCall) as Array<keyof typeof queryCall>));
    const answer = operation.chain((op) =>
      fc.record({
        op: fc.constant(op),
        kind: fc.constantFrom('spec', 'mutated', 'any'),
        spec: bodyOf(op, false),
        fuzzed: mutated(bodyOf(op, true)),
        any: anyAnswer(bodyOf(op, true)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(answer, async ({ op, kind, spec, fuzzed, any }) => {
        next = kind === 'spec' ? json(spec) : kind === 'mutated' ? json(fuzzed) : any;
        current = next.stall ? quick : client;
        const result = await outcome(queryCall[op]());
        if (kind !== 'spec' || !(op in QUERIES)) return;
        // An answer as the spec shows it is read, one entry per listed account, ids kept.
        assert.ok(
          'value' in result,
          `a spec-shaped ${op} answer was refused: ${'error' in result && result.error.message}`,
        );
        const { list: field, id } = QUERIES[op as Query];
        const entries = spec[field] as Array<Record<string, unknown>>;
        const read = result.value as {
          accounts?: Array<{ accountId?: string }>;
          files?: unknown[];
          requests?: unknown[];
        };
        const items = read.accounts ?? read.files ?? read.requests ?? [];
        assert.equal(items.length, entries.length);
        if (id)
          assert.deepEqual(
            read.accounts?.map((entry) => entry.accountId),
            entries.map((entry) => entry[id]),
          );
      }),
      fuzzParameters('eca client: query answers over HTTP', 300),
    );
  });

  it('reads any JSON answer and enumeration body into a value or EcaSchemaError', async function () {
    const schemas = Object.keys(responseSchemas) as Array<keyof typeof responseSchemas>;
    const inputs = fc.record({
      schema: fc.constantFrom(...schemas),
      body: fc.oneof(
        fc.jsonValue({ maxDepth: 5 }),
        mutated(fc.record({ result: fc.jsonValue({ maxDepth: 3 }) })),
        fc.constantFrom(...(Object.keys(QUERIES) as Query[])).chain((op) => mutated(bodyOf(op, true))),
      ),
      enumerations: fc.oneof(
        text,
        fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? ''),
      ),
    });
    await fc.assert(
      fc.asyncProperty(inputs, async ({ schema, body, enumerations }) => {
        for (const read of [
          () => validateResponse(responseSchemas[schema], body),
          () => parseEnumerationsBody('ACATS', enumerations),
        ]) {
          try {
            await read();
          } catch (error) {
            assert.ok(error instanceof EcaSchemaError, `not an EcaSchemaError: ${(error as Error).stack}`);
          }
        }
      }),
      fuzzParameters('eca parsers: response schemas and enumeration bodies called directly', 1000),
    );
  });
});
