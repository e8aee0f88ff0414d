/**
 * Property-based tests of the simulator's query routes over real HTTP: JSON bodies close to each
 * operation's request shape (the spec's request with fields dropped, mistyped, oversized, foreign and
 * unknown accounts added), and raw bodies (random bytes, truncated JSON, huge strings) under any content
 * type. Every answer is a refusal in the simulator's error shape, or a correct answer (a request as the
 * spec describes it is answered), never a 5xx or a hang; a request missing what the spec requires is
 * refused; the simulator still answers a known request after each case. The file operations are fuzzed
 * in envelopes.fuzz.test.ts, the control routes in control.fuzz.test.ts.
 */
import assert from 'node:assert/strict';
import { ENUMERATION_TYPES } from '../../../eca/enumerations.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { send } from '../codec/codec-server-http.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { startWithAccounts } from './helpers.js';
import type { Firm } from './helpers.js';

const PATHS: Record<string, string> = {
  getPendingTasks: '/ws/eca/getPendingTasks',
  getRegistrationTasks: '/ws/eca/getRegistrationTasks',
  getAccountStatus: '/ws/eca/getAccountStatus',
  getEnumerations: '/ws/eca/getEnumerations',
  getAmRequestStatus: '/ws/eca/getAmRequestStatus',
  getResponseFile: '/ws/eca/getResponseFile',
  getBatchDetails: '/ws/eca/getBatchDetails',
  getFileDetails: '/ws/eca/getFileDetails',
  'preference/set': '/pref/preference/set',
  submitDocuments: '/ws/eca/submitDocuments',
  validateXML: '/ws/eca/validateXML',
  create: '/ws/eca/create',
  update: '/ws/eca/update',
  'sso/create': '/ws/sso/create',
};
const QUERY_OPERATIONS = Object.keys(PATHS).slice(0, 9);

const huge = fc.nat({ max: 200_000 }).map((size) => 'x'.repeat(size));
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }), huge);
const mistyped = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1e308, '', ' ', [], {}, ['a', 1], { a: 1 }),
  text,
  fc.jsonValue({ maxDepth: 2 }),
);
const date = fc.oneof(
  fc.constantFrom('2025-01-08', '2024-02-29', '2025-02-30', '2025-1-8', '08/01/2025', '9999-12-31', '0000-01-01'),
  text,
);

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown> | undefined;
}

/** POSTs `body` with the content type given (none when undefined), each on its own connection, within 5 s. */
async function postTo(base: string, path: string, body: Buffer | string, contentType?: string): Promise<Answer> {
  const headers = contentType === undefined ? {} : { 'content-type': contentType };
  const answer = await send(base, { method: 'POST', path, headers, body });
  const text = answer.body.toString();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left undefined: the checks say whether JSON was due.
  }
  return { status: answer.status, text, json };
}

describe('simulator query routes (fuzz)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let firm: Firm;
  let accounts: string[];
  let userNames: string[];
  let last = '';

  before(async function () {
    ({ sim, firm, accounts, userNames } = await startWithAccounts());
  });
  after(async function () {
    await sim?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') process.stderr.write(`last request: ${last.slice(0, 2000)}\n`);
  });

  /** Sends the request: an answer below 500, a refusal in the simulator's error shape. */
  async function post(name: string, body: Buffer | string, contentType?: string): Promise<Answer> {
    last = `${name} ${contentType ?? '(no content type)'} ${body.toString().slice(0, 1000)}`;
    const answer = await postTo(sim.url, PATHS[name]!, body, contentType);
    const shown = `${name}: ${answer.status} ${answer.text.slice(0, 300)}`;
    assert.ok(answer.status < 500, shown);
    if (answer.status >= 400) assert.ok(answer.json?.isError === true && typeof answer.json.error === 'string', shown);
    return answer;
  }

  /** The simulator still answers a known request after the case. */
  async function stillAnswers(): Promise<void> {
    const body = JSON.stringify({ CSID: firm.csid });
    const answer = await postTo(sim.url, PATHS.getAccountStatus!, body, 'application/json');
    assert.equal(answer.status, 200, `after the case: ${answer.status} ${answer.text.slice(0, 300)}`);
  }

  const account = () => fc.oneof(fc.constantFrom(...accounts, 'U0000001', ''), text);
  const queryBody = () =>
    fc.record(
      {
        CSID: fc.oneof(fc.constant(firm.csid), fc.constant(firm.csid), fc.constant('CSID-UNKNOWN'), mistyped),
        accountIds: fc.oneof(fc.array(account(), { maxLength: 4 }), account(), mistyped),
        startDate: date,
        endDate: date,
        formNumber: fc.oneof(fc.constantFrom('8001', '3024', '12a'), mistyped),
        status: fc.oneof(fc.constantFrom('A', 'N', 'O', 'P', 'X'), mistyped),
        getDocs: fc.oneof(fc.constantFrom('T', 'F', 't'), mistyped),
        type: fc.oneof(fc.constantFrom('ACATS', 'FIN_INFO_RANGES', 'EDD_AVT', 'QUIZ_QUESTIONS', 'NOPE'), mistyped),
        currency: fc.oneof(fc.constantFrom('USD', 'eur', ''), mistyped),
        request_id: fc.oneof(fc.constantFrom('1', '999999'), mistyped),
        externalId: fc.oneof(fc.constantFrom('FZ-1', 'FZ-404'), mistyped),
        customerIdentity: fc.oneof(fc.record({ userName: fc.oneof(fc.constant('jdoexa'), mistyped) }), mistyped),
        preferences: fc.oneof(
          fc.record({ LANGUAGE: fc.record({ LANG1: fc.oneof(fc.constantFrom('en', 'EN', 'fr-ca'), mistyped) }) }),
          mistyped,
        ),
        extra: mistyped,
      },
      { requiredKeys: [] },
    );

  /** What the spec refuses whatever the simulator knows: a request missing what it requires. */
  function refusedBySpec(name: string, body: Record<string, unknown>): boolean {
    const present = (key: string) => body[key] !== undefined;
    if (name === 'preference/set') return !present('customerIdentity') || !present('preferences');
    if (typeof body.CSID !== 'string' || body.CSID === '') return true;
    if (['getPendingTasks', 'getRegistrationTasks', 'getAccountStatus'].includes(name)) {
      return present('startDate') && !present('endDate');
    }
    if (name === 'getBatchDetails' || name === 'getFileDetails') return !present('accountIds');
    if (name === 'getResponseFile') return !present('externalId');
    if (name === 'getAmRequestStatus') return Array.isArray(body.request_id);
    if (name !== 'getEnumerations') return false;
    if (!present('type') || !(ENUMERATION_TYPES as readonly unknown[]).includes(body.type)) return true;
    if (body.type === 'FIN_INFO_RANGES') return !present('currency');
    return body.type === 'EDD_AVT' && !present('formNumber');
  }

  /** A request of the operation as the spec describes it, with accounts the firm has (and one it has not). */
  function validBody(name: string): fc.Arbitrary<Record<string, unknown>> {
    const ids = fc.subarray([...accounts, 'U0000001'], { minLength: 1 });
    const range = fc.constantFrom({}, { endDate: '2025-01-31' }, { startDate: '2025-01-01', endDate: '2025-01-31' });
    const CSID = fc.constant(firm.csid);
    switch (name) {
      case 'preference/set': {
        const LANGUAGE = fc.record(
          { LANG1: fc.constantFrom('en', 'fr'), LANG2: fc.constantFrom('de', 'zh-cn') },
          { requiredKeys: ['LANG1'] },
        );
        const userName = fc.constantFrom(...userNames);
        return fc.record({
          customerIdentity: fc.record({ userName }),
          preferences: fc.record({ LANGUAGE }),
          updateMode: fc.constant('INDIVIDUAL'),
        });
      }
      case 'getEnumerations':
        return fc
          .constantFrom(
            { type: 'ACATS' },
            { type: 'FIN_INFO_RANGES', currency: 'EUR' },
            { type: 'EDD_AVT', formNumber: '9001' },
            { type: 'QUIZ_QUESTIONS' },
            { type: 'BUSINESS_OCCUPATION' },
          )
          .map((body) => ({ CSID: firm.csid, ...body }));
      case 'getResponseFile':
        return fc.record({ CSID, externalId: fc.constantFrom('FZ-1', 'FZ-404') });
      case 'getBatchDetails':
      case 'getFileDetails':
        return fc.record({ CSID, accountIds: ids });
      case 'getAmRequestStatus':
        return fc.record({ CSID, accountIds: ids, request_id: fc.constantFrom('1', '42') }, { requiredKeys: ['CSID'] });
      default: {
        const filters = fc.record(
          {
            accountIds: ids,
            formNumber: fc.constantFrom('8001', '3024'),
            status: fc.constantFrom('N', 'O'),
            getDocs: fc.constantFrom('T', 'F'),
          },
          { requiredKeys: [] },
        );
        return fc.tuple(filters, range).map(([filter, dates]) => {
          const body: Record<string, unknown> = { CSID: firm.csid, ...filter, ...dates };
          if (name !== 'getAccountStatus') delete body.status;
          if (name !== 'getRegistrationTasks') delete body.getDocs;
          if (name === 'getAccountStatus') delete body.formNumber;
          return body;
        });
      }
    }
  }

  it('answers JSON close to each query shape with a refusal or a correct answer, never a 5xx', async function () {
    const cases = fc.constantFrom(...QUERY_OPERATIONS).chain((name) =>
      fc.record({
        name: fc.constant(name),
        valid: validBody(name),
        drop: fc.option(fc.nat({ max: 5 }), { nil: undefined }),
        fuzzed: queryBody().chain((fields) => fc.subarray(Object.entries(fields), { maxLength: 2 })),
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ name, valid, drop, fuzzed }) => {
        const body: Record<string, unknown> = { ...valid, ...Object.fromEntries(fuzzed) };
        const keys = Object.keys(valid);
        if (drop !== undefined) delete body[keys[drop % keys.length]!];
        const answer = await post(name, JSON.stringify(body), 'application/json');
        const shown = `${name}: ${answer.status} ${answer.text.slice(0, 300)}`;
        // A request as the spec describes it is answered; one missing what the spec requires is refused.
        if (drop === undefined && fuzzed.length === 0) assert.equal(answer.status, 200, shown);
        if (refusedBySpec(name, body)) assert.ok(answer.status >= 400, `accepted: ${shown}`);
        if (answer.status === 200 && name !== 'preference/set' && name !== 'getEnumerations') {
          assert.ok(Array.isArray(name === 'getAccountStatus' ? answer.json?.status : answer.json?.result), shown);
          assert.equal(typeof answer.json?.timestamp, 'string', shown);
        }
        await stillAnswers();
      }),
      fuzzParameters('simulator: query requests (JSON close to each shape)', 1000),
    );
  });

  it('answers raw bodies (bytes, truncated JSON, huge strings) under any content type, never a 5xx', async function () {
    const cases = fc.record({
      name: fc.constantFrom(...Object.keys(PATHS)),
      contentType: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/octet-stream',
          'application/xml',
          '',
          ';;',
        ),
        { nil: undefined },
      ),
      body: fc.oneof(
        fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
        fc.tuple(queryBody(), fc.nat()).map(([body, cut]) => JSON.stringify(body).slice(0, cut % 300)),
        fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? ''),
        huge.map((value) => JSON.stringify({ CSID: value, payload: value })),
        fc.constantFrom('', 'null', '"x"', '[]', '{"__proto__":{"a":1}}', '{"constructor":{"prototype":{}}}'),
      ),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ name, contentType, body }) => {
        await post(name, body, contentType);
        await stillAnswers();
      }),
      fuzzParameters('simulator: raw request bodies and content types', 500),
    );
  });
});
