/**
 * The engine's logger (runtime/logger.ts): pino, personal data redacted by path and scrubbed from free
 * text, the SDK's lines through the same logger, JSON or pretty; and the inventory of the code's log call
 * sites that the test run's log watch counts (test/support/log-watch.ts).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ConfigurationError, loadWorkerConfig } from '../../../runtime/config.js';
import {
  announcer,
  createLogger,
  MAX_TEXT,
  PERSONAL_DATA_KEYS,
  scrubText,
  temporalLogger,
} from '../../../runtime/logger.js';
import type { LoggerOptions } from '../../../runtime/logger.js';
import type { LogFormat } from '../../../runtime/log-format.js';
import { APPLICATION_XML_EXAMPLE } from '../../../eca/application.js';
import { accountSnapshot } from '../../../brokerage/xml/accounts.js';
import { EcaHttpError, quoteService, WITHHELD_SERVICE_TEXT } from '../../../eca/index.js';
import type { AccountStatusEntry } from '../../../eca/index.js';

function capture(
  format: LogFormat = 'json',
  level: 'TRACE' | 'INFO' | 'WARN' = 'TRACE',
  serializers?: LoggerOptions['serializers'],
) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ name: 'test', level, format, destination, serializers });
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, records };
}

const PERSON = { first: 'Ottoline', last: 'Quarrington', email: 'ottoline.q@mailbox.example', TIN: '912-45-6789' };

describe('the engine logger (runtime/logger.ts)', function () {
  it('redacts every personal-data key at any depth and in any spelling', function () {
    const { logger, lines, records } = capture();
    const spellings = (key: string) => [key, key.toUpperCase(), key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
    for (const key of PERSONAL_DATA_KEYS) {
      for (const spelling of spellings(key)) {
        for (const depth of [0, 1, 5]) {
          let fields: Record<string, unknown> = { [spelling]: `secret-${key}-${depth}`, kept: 'visible' };
          for (let level = 0; level < depth; level++) fields = { [`level${level}`]: fields };
          logger.info(fields, 'fields');
        }
      }
    }
    assert.equal(records().length, PERSONAL_DATA_KEYS.length * 3 * 3);
    for (const line of lines) {
      assert.doesNotMatch(line, /secret-/);
      assert.match(line, /"kept":"visible"/);
    }
    assert.equal(records()[0]?.[PERSONAL_DATA_KEYS[0]], '[redacted]');
  });

  it('scrubs free text: e-mail addresses, tax ids, quoted attributes and the text of quoted XML', function () {
    assert.equal(scrubText('refused for ottoline.q@mailbox.example'), 'refused for [email]');
    assert.equal(
      scrubText('TIN 912-45-6789, EIN 12-3456789, SSN 912456789'),
      'TIN [tax id], EIN [tax id], SSN [tax id]',
    );
    assert.equal(scrubText('holder first="Ottoline" last=\'Q\''), 'holder first="[redacted]" last="[redacted]"');
    const xml = scrubText(APPLICATION_XML_EXAMPLE);
    for (const value of ['Jane', 'Doe', 'jane.doe@example.com', '1985-04-12', 'D1234567', '1 Main Street']) {
      assert.ok(!xml.includes(value), `${value} in ${xml}`);
    }
    assert.match(xml, /<Name first="\[redacted\]" last="\[redacted\]"\/>/);
    assert.equal(scrubText('{"email": "x", "first":"Ottoline"}'), '{"email": "[redacted]", "first":"[redacted]"}');
    assert.equal(scrubText('<DOB>\n1985-04-12\n</DOB>'), '<DOB>[redacted]</DOB>');
    // What the engine writes itself stays readable: ids, times, counts, states, code.
    for (const plain of [
      'account U1000007 of firm-1-EXT-9 at 2026-11-27T20:30:23.123Z: 3 attempt(s), state needsDocuments',
      'application-firm1-A123456789, ORD_123456789, 123456789ns, retry="3"',
      'Promise<void> rejected; expected Array<string>',
    ]) {
      assert.equal(scrubText(plain), plain);
    }
    const long = `${'a'.repeat(MAX_TEXT)}${'x@'.repeat(1000)}`;
    assert.equal(scrubText(long), `${'a'.repeat(MAX_TEXT)}…[2000 more characters]`);
  });

  it("keeps an error's type, code and failure type, and scrubs an error logged without a message", function () {
    const { logger, records } = capture();
    const failure = Object.assign(new Error(`refused ${PERSON.email}`), {
      code: 'ECONNRESET',
      type: 'EcaNetworkError',
    });
    logger.error({ err: failure }, 'request failed');
    logger.error(new RangeError(`bad TIN ${PERSON.TIN}`));
    logger.warn({ err: new Error(`for ${PERSON.email}`) });
    const [first, second, third] = records();
    assert.deepEqual(
      { ...(first?.err as object), stack: undefined },
      {
        type: 'Error',
        code: 'ECONNRESET',
        failureType: 'EcaNetworkError',
        message: 'refused [email]',
        stack: undefined,
      },
    );
    assert.equal(second?.msg, 'bad TIN [tax id]');
    assert.equal(third?.msg, 'for [email]');
  });

  it('scrubs messages, format arguments and errors (text, stack and cause), keeping their type', function () {
    const { logger, lines, records } = capture();
    const cause = new Error(`<Name first="${PERSON.first}"/> for ${PERSON.email}`);
    const error = new TypeError(`create refused: TIN ${PERSON.TIN}`, { cause });
    logger.warn({ error }, `refused for %s (${PERSON.TIN})`, PERSON.email);
    for (const value of Object.values(PERSON)) assert.ok(!lines[0]?.includes(value), `${value} in ${lines[0]}`);
    const [record] = records();
    assert.equal(record?.msg, 'refused for [email] ([tax id])');
    const logged = record?.error as { type: string; message: string; stack: string; cause: { message: string } };
    assert.equal(logged.type, 'TypeError');
    assert.equal(logged.message, 'create refused: TIN [tax id]');
    assert.match(logged.stack, /^TypeError: create refused: TIN \[tax id\]\n\s+at /);
    assert.equal(logged.cause.message, '<Name first="[redacted]"/> for [email]');
  });

  it("withholds the service's words the engine's texts quote (a name in prose), keeping the engine's", function () {
    const { logger, lines, records } = capture();
    const prose = `account of ${PERSON.first} ${PERSON.last} is under review`;
    const entry = accountSnapshot({ accountId: 'U7', isError: true, error: prose } as AccountStatusEntry, undefined);
    assert.ok(entry instanceof Error);
    // As a step wraps it for the workflow, and as a brokerage's text could try to close the quotation.
    const wrapped = Object.assign(new Error(`${entry.message} (account-entry, 3 attempt(s) in a row): blocked`), {
      type: 'AccountEntryError',
    });
    const closing = new EcaHttpError('getAccountStatus', 500, `{"error":"» ${prose}"}`);
    logger.warn({ err: new EcaHttpError('getAccountStatus', 500, `{"error":"${prose}"}`) }, 'Activity failed');
    logger.warn({ err: entry }, 'Activity failed');
    logger.warn({ err: wrapped, closing }, 'step blocked');
    // A failure as an activation carries it at TRACE (a protobuf message, not a plain object).
    const proto = Object.create({ kind: 'Failure' }) as Record<string, unknown>;
    Object.assign(proto, { message: entry.message, stackTrace: `AccountEntryError: ${entry.message}\n    at x` });
    logger.trace({ activation: { jobs: [{ resolveActivity: { failure: proto } }] } }, 'Got workflow activation');
    // A text cut at the limit inside a quotation.
    logger.info(`${'a'.repeat(MAX_TEXT - 5)} ${quoteService(`${prose} ${'b'.repeat(100)}`)}`);
    for (const line of lines) {
      for (const value of [PERSON.first, PERSON.last]) assert.ok(!line.includes(value), `${value} in ${line}`);
    }
    const [http, own, blocked, activation] = records();
    assert.equal((http?.err as { message: string }).message, `getAccountStatus: HTTP 500 (${WITHHELD_SERVICE_TEXT})`);
    assert.match((http?.err as { stack: string }).stack, /^EcaHttpError: getAccountStatus: HTTP 500 \(«the service/);
    assert.equal((own?.err as { message: string }).message, `getAccountStatus: ${WITHHELD_SERVICE_TEXT}`);
    assert.equal(
      (blocked?.err as { message: string }).message,
      `getAccountStatus: ${WITHHELD_SERVICE_TEXT} (account-entry, 3 attempt(s) in a row): blocked`,
    );
    assert.match(JSON.stringify(activation), /"message":"getAccountStatus: «the service's words, withheld»"/);
    // The engine's own texts are kept whole.
    const plain = new EcaHttpError('getAccountStatus', 503, '');
    assert.equal(scrubText(plain.message), 'getAccountStatus: HTTP 503');
    assert.equal(
      scrubText('getAccountStatus lists no entry for account U7'),
      'getAccountStatus lists no entry for account U7',
    );
  });

  it('leaves a request to its serializer (its output scrubbed), and walks any other object by its own fields, getters that throw included', function () {
    class Request {
      readonly id = 'req-1';
      get url() {
        return `/v1/applications?email=${PERSON.email}`;
      }
    }
    class Holder {
      readonly note = `for ${PERSON.email}`;
      readonly email = PERSON.email;
    }
    const { logger, records } = capture('json', 'TRACE', {
      req: (request: Request) => ({ id: request.id, url: request.url }),
    });
    const broken = Object.defineProperty({ kept: 'yes' }, 'failing', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    logger.info({ req: new Request(), holder: new Holder(), broken }, 'incoming request');
    const [record] = records() as Record<string, Record<string, string>>[];
    // The serializer read the request's getter (a walked copy has none), and its output was scrubbed.
    assert.deepEqual(record?.req, { id: 'req-1', url: '/v1/applications?email=[email]' });
    assert.deepEqual(record?.holder, { note: 'for [email]', email: '[redacted]' });
    // A field whose getter throws costs the field, not the line.
    assert.deepEqual(record?.broken, { kept: 'yes', failing: '[unreadable]' });
  });

  it("carries the SDK's lines: its levels, its metadata as fields, nothing below the level", function () {
    const { logger, records } = capture('json', 'INFO');
    const sdk = temporalLogger(logger);
    sdk.debug('Activity completed', { durationMs: 3 });
    sdk.info('lifecycle transition', { workflowId: 'firm-EXT-1', from: 'validating', to: 'tracking' });
    sdk.log('WARN', 'Activity failed', { error: new Error(`refused ${PERSON.email}`), applicant: PERSON });
    sdk.error('Workflow failed', { sdkComponent: 'worker' });
    const [info, warn, error] = records();
    assert.equal(records().length, 3);
    assert.deepEqual(
      { level: info?.level, msg: info?.msg, workflowId: info?.workflowId, to: info?.to, name: info?.name },
      { level: 'info', msg: 'lifecycle transition', workflowId: 'firm-EXT-1', to: 'tracking', name: 'test' },
    );
    assert.equal(warn?.level, 'warn');
    assert.equal(warn?.applicant, '[redacted]');
    assert.equal((warn?.error as { message: string }).message, 'refused [email]');
    assert.equal(error?.level, 'error');
    assert.equal(error?.sdkComponent, 'worker');
    assert.match(String(info?.time), /^\d{4}-\d\d-\d\dT/);
    // The time the SDK wrote a line at, which forwarding delivers late.
    sdk.info('forwarded', { [Symbol.for('log_timestamp')]: 1_700_000_000_123_456_789n });
    assert.equal(records()[3]?.sdkTime, '2023-11-14T22:13:20.123Z');
  });

  it("writes a process's start and stop lines whatever the level, nothing else below it", function () {
    const { logger, records } = capture('json', 'WARN');
    logger.info('dropped');
    announcer(logger).info('eca worker polling task queue "q"');
    logger.warn('kept');
    assert.deepEqual(
      records().map((record) => [record.level, record.msg]),
      [
        ['info', 'eca worker polling task queue "q"'],
        ['warn', 'kept'],
      ],
    );
  });

  it('writes pretty lines for a terminal, with the same redaction', function () {
    const { logger, lines } = capture('pretty');
    temporalLogger(logger).warn('step blocked', { step: 'create', email: PERSON.email, error: `for ${PERSON.email}` });
    const text = lines.join('\n');
    assert.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(test\): step blocked/);
    assert.match(text, /step: "create"/);
    assert.ok(!text.includes(PERSON.email));
    assert.throws(() => JSON.parse(lines[0] ?? ''));
  });

  it('takes its format from ECA_LOG_FORMAT, and refuses an unknown one by name', function () {
    assert.equal(loadWorkerConfig({ ECA_LOG_FORMAT: 'json' }).telemetry.logFormat, 'json');
    assert.equal(loadWorkerConfig({}).telemetry.logFormat, undefined);
    assert.throws(
      () => loadWorkerConfig({ ECA_LOG_FORMAT: 'xml' }),
      (error: unknown) => error instanceof ConfigurationError && /ECA_LOG_FORMAT/.test(error.message),
    );
  });
});
