/**
 * Property-based tests of the simulator's control routes (`/_sim/*`) over real HTTP: every route with
 * path parameters of any text, bodies close to its shape (durations, time scales, faults, listing lag,
 * firms, keys, whitelists, seeding) with fields mistyped, negative, huge or missing, random JSON and raw
 * bytes. Every answer is a refusal (4xx with an `error` text) or a success, never a 5xx or a hang; and
 * after each case (its injected faults removed) the simulator still answers its state and a query.
 * Its own simulator: the cases move its clock, reset it and replace its firms' keys.
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../../simulator/server.js';
import { send } from '../codec/codec-server-http.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { start } from './helpers.js';
import type { Firm } from './helpers.js';

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.nat({ max: 50_000 }).map((size) => 'x'.repeat(size)),
);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 0.5, 1, 1e3, 1e6, 8.64e15, 1e15, 1e300, Number.MAX_SAFE_INTEGER, 2 ** 31),
);
const mistyped = fc.oneof(fc.constantFrom(null, true, '', '1', [], {}), number, text, fc.jsonValue({ maxDepth: 2 }));
const field = <T>(fitting: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fitting }, mistyped);

/** Fields of every control body, each fitting its route now and then. */
const fields = {
  scenario: field(fc.constantFrom('happy', 'docs-required', 'compliance-rejected', 'stalled', 'nope')),
  answer: field(fc.constantFrom('second-account', 'already-processed', 'nope')),
  ms: field(number),
  seconds: field(number),
  minutes: field(number),
  hours: field(number),
  days: field(number),
  businessDays: field(number),
  timeScale: field(number),
  operation: field(fc.constantFrom('*', 'getAccountStatus', 'create', 'sso/create', 'nope')),
  kind: field(fc.constantFrom('http500', 'http503', 'latency', 'timeout', 'malformed', 'drop', 'lost-response')),
  rate: field(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), number)),
  count: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom(0.5, '3', null, 2_000_000, 1e9)),
  name: field(fc.constantFrom('Fuzz-Firm', 'a', 'bad name', '-x')),
  firmType: field(fc.constantFrom('advisor', 'fully-disclosed', 'non-disclosed', 'nope')),
  csid: field(fc.constantFrom('CSID-FUZZ-1', '')),
  publicKey: field(fc.constantFrom('-----BEGIN PGP PUBLIC KEY BLOCK-----\nxx\n-----END PGP PUBLIC KEY BLOCK-----')),
  ips: field(fc.array(fc.constantFrom('127.0.0.1', '::1', 'nope', ''), { maxLength: 3 })),
  formNumber: field(fc.constantFrom('8001', '')),
  prefix: field(text),
  getAccountStatus: field(fc.record({ minMs: number, maxMs: number })),
  getResponseFile: field(fc.record({ minMs: fc.constant(0), maxMs: fc.constantFrom(0, 10, 1e9) })),
};

type Field = keyof typeof fields;
const DURATION: Field[] = ['ms', 'seconds', 'minutes', 'hours', 'days', 'businessDays'];
const REQUIRED: Field[] = ['scenario', 'answer', 'timeScale', 'operation', 'kind', 'name', 'publicKey', 'ips', 'count'];

/** Every control route, with the fields of its body. */
const ROUTES: ReadonlyArray<readonly [string, string, Field[]?]> = [
  ['GET', '/_sim/state'],
  ['GET', '/_sim/scenarios'],
  ['GET', '/_sim/scenarios/:p'],
  ['PUT', '/_sim/scenarios/:p', ['scenario']],
  ['GET', '/_sim/repeated-external-id'],
  ['PUT', '/_sim/repeated-external-id', ['answer']],
  ['PUT', '/_sim/default-scenario', ['scenario']],
  ['GET', '/_sim/clock'],
  ['POST', '/_sim/clock/advance', DURATION],
  ['PUT', '/_sim/clock/scale', ['timeScale']],
  ['GET', '/_sim/faults'],
  ['POST', '/_sim/faults', ['operation', 'kind', 'rate', 'count', 'ms']],
  ['DELETE', '/_sim/faults'],
  ['DELETE', '/_sim/faults/:p'],
  ['GET', '/_sim/calls'],
  ['DELETE', '/_sim/calls'],
  ['GET', '/_sim/records'],
  ['POST', '/_sim/reset'],
  ['POST', '/_sim/flush'],
  ['POST', '/_sim/firms', ['name', 'firmType', 'csid']],
  ['PUT', '/_sim/firms/:p/public-key', ['publicKey']],
  ['GET', '/_sim/listing-lag'],
  ['PUT', '/_sim/listing-lag', ['getAccountStatus', 'getResponseFile', 'scenario']],
  ['PUT', '/_sim/firms/:p/whitelist', ['ips']],
  ['GET', '/_sim/accounts/:p'],
  ['GET', '/_sim/external-ids/:p'],
  ['POST', '/_sim/accounts/:p/complete-task', ['formNumber']],
  ['POST', '/_sim/accounts/:p/close'],
  ['POST', '/_sim/seed', ['count', 'csid', 'prefix']],
];

/** A body for the route: its own fields (each fitting now and then), any fields, random JSON or bytes. */
function bodyOf(own: Field[] = []): fc.Arbitrary<string | Buffer | undefined> {
  const pick = (keys: Field[]) => Object.fromEntries(keys.map((key) => [key, fields[key]]));
  const ownFields = fc.record(pick(own), { requiredKeys: own.filter((key) => REQUIRED.includes(key)) });
  return fc.oneof(
    { weight: 6, arbitrary: ownFields.map((value) => JSON.stringify(value)) },
    fc.record(fields, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? ''),
    fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(undefined),
  );
}

describe('simulator control routes (fuzz)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let firm: Firm;
  let last = '';

  before(async function () {
    ({ sim, firm } = await start());
  });
  after(async function () {
    await sim?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') process.stderr.write(`last request: ${last.slice(0, 2000)}\n`);
  });

  async function call(method: string, path: string, body?: string | Buffer, contentType = 'application/json') {
    const headers = body === undefined ? {} : { 'content-type': contentType };
    const answer = await send(sim.url, { method, path, headers, ...(body === undefined ? {} : { body }) });
    return { status: answer.status, text: answer.body.toString() };
  }

  /** After the case: no fault left, and the simulator answers its state and a query. */
  async function stillAnswers(): Promise<void> {
    const cleared = await call('DELETE', '/_sim/faults');
    assert.equal(cleared.status, 200, `faults not cleared: ${cleared.status} ${cleared.text.slice(0, 300)}`);
    const state = await call('GET', '/_sim/state');
    assert.equal(state.status, 200, `state after the case: ${state.status} ${state.text.slice(0, 300)}`);
    const query = await call('POST', '/ws/eca/getAccountStatus', JSON.stringify({ CSID: firm.csid }));
    assert.equal(query.status, 200, `a query after the case: ${query.status} ${query.text.slice(0, 300)}`);
  }

  it('answers any control request with a refusal or a success, never a 5xx, and keeps answering', async function () {
    const cases = fc.record({
      route: fc.constantFrom(...ROUTES).chain((route) => fc.tuple(fc.constant(route), bodyOf(route[2]))),
      parameter: fc.oneof(fc.constantFrom(firm.csid, 'U1000001', 'EXT-1', '1', '..', '%', '%00'), text),
      query: fc.constantFrom('', '?csid=', `?csid=${firm.csid}`, '?csid=a&csid=b', '?externalId=%ZZ'),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'a/b'),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ route: [[method, template], sent], parameter, query, contentType }) => {
        const encoded = ['..', '%', '%00'].includes(parameter) ? parameter : encodeURIComponent(parameter);
        const path = `${template.replace(':p', encoded)}${query}`;
        const withBody = method === 'GET' || method === 'DELETE' ? undefined : sent;
        last = `${method} ${path} ${String(withBody).slice(0, 1000)}`;
        const answer = await call(method, path, withBody, contentType);
        const shown = `${method} ${path}: ${answer.status} ${answer.text.slice(0, 300)}`;
        assert.ok(answer.status < 500, shown);
        if (answer.status >= 400) {
          const refusal = JSON.parse(answer.text) as { error?: unknown };
          assert.equal(typeof refusal.error, 'string', shown);
        }
        await stillAnswers();
      }),
      fuzzParameters('simulator: control routes (/_sim/*)', 1000),
    );
  });
});
