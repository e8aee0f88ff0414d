/**
 * Property-based tests of the eca client's opening and reading of the file data in the service's answers
 * (submitDocuments, create, validateXML, update, sso/create). A local HTTP server answers each call with
 * JSON of the spec's shape whose file field holds fuzzed data: sealed XML close to the report and create
 * response formats (cut, with markup inserted, deeply nested, with reserved names), sealed random bytes
 * and ZIPs, truncated or bit-flipped messages, messages sealed with a foreign key, plain text. Every call
 * gives a parse or one of the library's typed errors (EcaError), never a TypeError or a RangeError, and
 * ends in time. The exported XML readers get such texts directly, at a larger budget.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';
import { generateKeyPair, loadPrivateKey, loadPublicKey, seal, toBase64 } from '../../../eca/crypto.js';
import type { EnvelopeKeys } from '../../../eca/crypto.js';
import { EcaSchemaError } from '../../../eca/errors.js';
import { createEcaClient } from '../../../eca/web-client/index.js';
import type { EcaClient } from '../../../eca/web-client/index.js';
import {
  APPLICATION_XML_EXAMPLE,
  buildUpdateRequestXml,
  parseCreateResponseXml,
  parseDocumentsReport,
  parseXmlTree,
} from '../../../eca/xml.js';
import { buildCreateResponseXml, buildDocumentsReport } from '../../../simulator/formats/report-xml.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { outcome } from './typed-outcome.js';

/** Longest a call may take before the test calls it a hang. */
const PASSPHRASE = 'fuzz phrase';
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.nat({ max: 100_000 }).map((size) => 'A'.repeat(size)),
);
const code = fc.constantFrom('A', 'N', 'O', 'C', 'P', 'R', 'X');
const accountId = fc.stringMatching(/^U\d{1,8}$/);

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

const json = (value: unknown, status = 200): Answer => ({
  status,
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify(value)),
});

/** Mutations of an XML text: cuts, inserted markup, deep nesting, reserved and odd names, entities. */
function xmlVariants(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const insert = fc.constantFrom(
    '<',
    '>',
    '&',
    '&#x110000;',
    '&amp;',
    ']]>',
    '<!DOCTYPE x>',
    '<__proto__/>',
    '<constructor a="1"/>',
    '<a:__proto__ xmlns:a="x"/>',
    '<Document __proto__="1"/>',
    '<Document Status=""/>',
    '<Application/>',
    '<?pi x?>',
    '<!-- c -->',
    '\u0000',
  );
  const nested = fc.nat({ max: 400 }).map((depth) => `${'<Documents>'.repeat(depth)}${'</Documents>'.repeat(depth)}`);
  return fc.oneof(
    valid,
    fc.tuple(valid, fc.nat()).map(([xml, cut]) => xml.slice(0, cut % (xml.length + 1))),
    fc.tuple(valid, fc.nat(), fc.oneof(insert, nested, text)).map(([xml, at, piece]) => {
      const index = at % (xml.length + 1);
      return `${xml.slice(0, index)}${piece}${xml.slice(index)}`;
    }),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
}

const reportXml = fc
  .record({
    accountId: fc.option(accountId, { nil: undefined }),
    documents: fc.array(
      fc.record({
        formNumber: fc.string({ maxLength: 6 }),
        fileName: fc.string({ maxLength: 10 }),
        status: fc.constantFrom('Accepted', 'Rejected: unreadable', `File x.pdf: stored ${'a'.repeat(40)}`),
      }),
      { maxLength: 4 },
    ),
  })
  .map((input) => buildDocumentsReport({ version: '15-Mar-2024', executionDate: new Date(0), ...input }));

const createXml = fc
  .array(
    fc.record({
      externalId: fc.string({ minLength: 1, maxLength: 8 }),
      status: fc.constantFrom('Success', 'Error', 'Already processed') as fc.Arbitrary<'Success'>,
      accounts: fc.array(fc.record({ accountId, status: code }), { maxLength: 2 }),
      users: fc.array(fc.record({ userName: fc.string({ maxLength: 8 }), temporaryPassword: text }), { maxLength: 2 }),
      errors: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }),
    }),
    { maxLength: 3 },
  )
  .map((applications) => buildCreateResponseXml({ applications }));

describe('eca client: file data of the answers (fuzz)', function () {
  this.timeout(120_000);
  let server: Server;
  let client: EcaClient;
  let brokerage: EnvelopeKeys;
  let foreign: EnvelopeKeys;
  let next: Answer = json({});

  before(async function () {
    const [firm, broker, other] = await Promise.all(
      ['firm', 'brokerage', 'other'].map((name) =>
        generateKeyPair({ name, email: `${name}@example.test`, passphrase: PASSPHRASE }),
      ),
    );
    const keysOf = async (own: typeof firm, peer: typeof firm): Promise<EnvelopeKeys> => ({
      ownPrivateKey: await loadPrivateKey(own!.privateKey, PASSPHRASE),
      peerPublicKey: await loadPublicKey(peer!.publicKey),
    });
    brokerage = await keysOf(broker, firm);
    foreign = await keysOf(other, firm);
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(next.status, { 'content-type': next.contentType }).end(next.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = createEcaClient({
      baseUrl: url,
      preferenceUrl: url,
      csid: 'CSID-FUZZ',
      firmPrivateKey: firm!.privateKey,
      passphrase: PASSPHRASE,
      brokeragePublicKey: broker!.publicKey,
      timeoutMs: 5_000,
      retry: { limit: 0, delayMs: 1 },
      sso: { allowInsecureLoopback: true },
    });
  });
  after(async function () {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** What a file operation's answer carries as file data: sealed, foreign, cut, flipped or plain text. */
  const content = fc.oneof(
    xmlVariants(fc.oneof(reportXml, createXml)).map((xml) => new Uint8Array(Buffer.from(xml))),
    fc.uint8Array({ maxLength: 300 }),
    fc
      .dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.uint8Array({ maxLength: 50 }), { maxKeys: 3 })
      .map((files) => zipSync(files)),
  );
  const fileData = fc.oneof(
    fc.record({ kind: fc.constantFrom('sealed', 'foreign'), content }),
    fc.record({ kind: fc.constant('cut'), content, at: fc.nat() }),
    fc.record({ kind: fc.constant('flipped'), content, at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
    fc.record({ kind: fc.constant('text'), value: fc.oneof(text, fc.base64String({ maxLength: 200 })) }),
  );
  type FileData = typeof fileData extends fc.Arbitrary<infer T> ? T : never;

  async function dataOf(file: FileData): Promise<string> {
    if (file.kind === 'text') return file.value;
    const sealed = await seal(file.content, file.kind === 'foreign' ? foreign : brokerage);
    if (file.kind === 'cut') return sealed.slice(0, file.at % sealed.length);
    if (file.kind !== 'flipped') return sealed;
    const bytes = Buffer.from(sealed, 'base64');
    bytes[file.at % bytes.length]! ^= file.xor;
    return bytes.toString('base64');
  }

  const fileCall = {
    submitDocuments: () =>
      client.submitDocuments({
        documents: [
          {
            formNumber: '3024',
            execTs: '20240501090000',
            execLoginTs: '20240501085500',
            files: [{ fileName: 'a.pdf', data: Buffer.from('%PDF-1.4') }],
          },
        ],
      }),
    create: () => client.create({ applicationXml: APPLICATION_XML_EXAMPLE }),
    validateXML: () => client.validateXML({ applicationXml: APPLICATION_XML_EXAMPLE }),
    update: () => client.update({ xml: buildUpdateRequestXml({ accountId: 'U1', functionName: 'AbandonAccount' }) }),
    ssoCreate: () => client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' }),
  };

  /** The answer of a file operation as the spec shows it, with `data` in the field of its file. */
  function fileAnswer(op: keyof typeof fileCall, data: string, flags: { ok: boolean; nested: boolean }) {
    switch (op) {
      case 'ssoCreate':
        return flags.nested
          ? { RESULT: flags.ok, SUCCESS: { SIGNED_URL: data } }
          : { RESULT: flags.ok, SIGNED_URL: data };
      case 'validateXML':
        return { isValid: flags.ok, batchId: 7, timestamp: '2024-05-01 10:00:00', errors: [{ error: data }, data] };
      case 'update':
        return { timestamp: '2024-05-01 10:00:00', fileData: flags.nested ? { name: 'F_1.xml', data } : { data } };
      default:
        return {
          timestamp: '2024-05-01 10:00:00',
          isProcessed: flags.ok,
          batchId: 3,
          fileData: { name: 'F.xml.report', data },
        };
    }
  }

  it('opens and reads any file data of a file operation, or fails with a typed error', async function () {
    const url = fc
      .constantFrom(
        'http://127.0.0.1/sso?SID=1',
        'https://portal.qa.eca.example.invalid/x',
        'javascript:x',
        'http://u:p@h/',
      )
      .map((value) => new Uint8Array(Buffer.from(value)));
    const cases = fc.record({
      op: fc.constantFrom(...(Object.keys(fileCall) as Array<keyof typeof fileCall>)),
      file: fc.oneof(
        { arbitrary: fileData, weight: 6 },
        fc.record({ kind: fc.constantFrom('sealed' as const), content: url }),
        url.map((bytes) => ({ kind: 'text' as const, value: toBase64(bytes) })),
      ),
      flags: fc.record({ ok: fc.boolean(), nested: fc.boolean() }),
      mutate: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ op, file, flags, mutate }) => {
        next = json({ ...fileAnswer(op, await dataOf(file), flags), ...mutate });
        await outcome<unknown>(fileCall[op]());
      }),
      fuzzParameters('eca client: file operation answers (envelope, OpenPGP, file XML)', 300),
    );
  });

  it('reads report and create response XML into values or EcaSchemaError', function () {
    fc.assert(
      fc.property(xmlVariants(fc.oneof(reportXml, createXml)), (xml) => {
        for (const read of [parseXmlTree, parseDocumentsReport, parseCreateResponseXml]) {
          try {
            read(xml);
          } catch (error) {
            assert.ok(error instanceof EcaSchemaError, `not an EcaSchemaError: ${(error as Error).stack}`);
          }
        }
      }),
      fuzzParameters('eca parsers: report and create response XML called directly', 1000),
    );
  });
});
