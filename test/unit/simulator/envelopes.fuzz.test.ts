/**
 * Property-based tests of the simulator's file operations (submitDocuments, validateXML, create, update,
 * sso/create) over real HTTP: envelopes whose CSID is the firm's, unknown or mistyped, and whose payload
 * is random text, bad base64, a cut or bit-flipped message, a message signed by a key the brokerage does
 * not know or encrypted to another brokerage, or a sealed archive of the operation's request XML (as the
 * firm writes it, cut, with markup inserted, deeply nested, with reserved names) among random entries and
 * names, or an SSO request with fuzzed fields. Every answer is the operation's failure shape (never kinder:
 * a payload that cannot be opened with the agreed keys is never processed), a refusal, or a correct
 * answer; never a 5xx or a hang, and the simulator still answers a known request after each case.
 */
import assert from 'node:assert/strict';
import { zipSync } from 'fflate';
import { sha1Hex } from '../../../eca/archive.js';
import { generateKeyPair, loadPrivateKey, loadPublicKey, seal } from '../../../eca/crypto.js';
import type { EnvelopeKeys } from '../../../eca/crypto.js';
import { APPLICATION_XML_EXAMPLE, buildSubmitDocumentsXml, buildUpdateRequestXml } from '../../../eca/xml.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { send } from '../codec/codec-server-http.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { startWithAccounts } from './helpers.js';
import type { Firm } from './helpers.js';

const OPERATIONS = {
  submitDocuments: '/ws/eca/submitDocuments',
  validateXML: '/ws/eca/validateXML',
  create: '/ws/eca/create',
  update: '/ws/eca/update',
  'sso/create': '/ws/sso/create',
} as const;
type Operation = keyof typeof OPERATIONS;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.nat({ max: 100_000 }).map((size) => 'x'.repeat(size)),
);
const mistyped = fc.oneof(
  fc.constantFrom(null, true, 0, 1e308, '', [], {}, ['a']),
  text,
  fc.jsonValue({ maxDepth: 2 }),
);
const PDF = Buffer.from('%PDF-1.4 fuzz');

/** Mutations of an XML text: cuts, inserted markup, deep nesting, reserved names. */
function xmlVariant(valid: string): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.constantFrom('<', '&', '<!DOCTYPE x>', '<constructor/>', '<a __proto__="1"/>', '<Document/>', '\u0000'),
    fc.nat({ max: 300 }).map((depth) => `${'<Document>'.repeat(depth)}${'</Document>'.repeat(depth)}`),
    text,
  );
  const at = (position: number) => position % (valid.length + 1);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(valid) },
    fc.nat().map((cut) => valid.slice(0, at(cut))),
    fc
      .tuple(fc.nat(), piece)
      .map(([index, inserted]) => `${valid.slice(0, at(index))}${inserted}${valid.slice(at(index))}`),
  );
}

describe('simulator file operations (fuzz)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let firm: Firm;
  /** A signer the brokerage does not know, and the firm's keys towards another brokerage. */
  let strangers: EnvelopeKeys[];
  let accounts: string[];
  let userNames: string[];
  let last = '';

  before(async function () {
    ({ sim, firm, accounts, userNames } = await startWithAccounts());
    const stranger = await generateKeyPair({ name: 'Stranger', email: 'stranger@example.test' });
    strangers = [
      { ownPrivateKey: await loadPrivateKey(stranger.privateKey), peerPublicKey: firm.keys.peerPublicKey },
      { ownPrivateKey: firm.keys.ownPrivateKey, peerPublicKey: await loadPublicKey(stranger.publicKey) },
    ];
  });
  after(async function () {
    await sim?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') process.stderr.write(`last request: ${last.slice(0, 2000)}\n`);
  });

  /** The request XML of the operation as the firm writes it, then varied. */
  function requestXml(operation: Operation): fc.Arbitrary<string> {
    if (operation === 'submitDocuments') {
      const file = { fileName: 'a.pdf', sha1: sha1Hex(PDF), length: PDF.length };
      const document = { formNumber: '3024', execTs: '20250108090000', execLoginTs: '20250108085500', files: [file] };
      return xmlVariant(buildSubmitDocumentsXml({ documents: [document] }));
    }
    if (operation !== 'update') return xmlVariant(APPLICATION_XML_EXAMPLE.replace('EXT-1', 'FZ-NEW'));
    const functionName = fc.constantFrom(
      'AbandonAccount',
      'DocumentSubmission',
      'UpdateTaxForm',
      'constructor',
      'Nope',
    );
    return fc
      .tuple(functionName, fc.constantFrom(...accounts, 'U0000001'))
      .chain(([name, accountId]) => xmlVariant(buildUpdateRequestXml({ accountId, functionName: name })));
  }

  /** What the payload seals: the operation's archive or SSO request, another one, or random bytes. */
  function content(operation: Operation): fc.Arbitrary<Uint8Array> {
    const name = fc.constantFrom('documents.xml', 'x.XML', 'a.pdf', '../up.xml', 'dir/', 'd/in.xml', '', 'constructor');
    const xml = (of: Operation) => requestXml(of).map((value) => new Uint8Array(Buffer.from(value)));
    const extra = (of: Operation) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant([]) },
        fc.array(fc.tuple(name, fc.oneof(xml(of), fc.uint8Array({ maxLength: 60 }))), { maxLength: 2 }),
      );
    const archive = (of: Operation) =>
      fc
        .tuple(xml(of), extra(of))
        .map(([request, more]) => zipSync({ 'request.xml': request, 'a.pdf': PDF, ...Object.fromEntries(more) }));
    const ssoFields = {
      USER_NAME: fc.oneof(fc.constantFrom(...userNames), mistyped),
      IP: fc.oneof(fc.constantFrom('203.0.113.9', '::1', '1.2.3.4, 5.6.7.8'), mistyped),
    };
    const sso = fc
      .record(ssoFields, { requiredKeys: [] })
      .map((value) => new Uint8Array(Buffer.from(JSON.stringify(value))));
    const own = operation === 'sso/create' ? sso : archive(operation);
    const other = fc.constantFrom(...(Object.keys(OPERATIONS) as Operation[])).chain(archive);
    return fc.oneof({ weight: 4, arbitrary: own }, other, sso, fc.uint8Array({ maxLength: 200 }));
  }

  /** A payload: plain text, or sealed with the agreed or foreign keys, then kept, cut or bit-flipped. */
  function payload(operation: Operation) {
    const sealed = fc.record({
      content: content(operation),
      keys: fc.constantFrom('agreed', 'agreed', 'agreed', 'agreed', 'unknown signer', 'foreign recipient'),
      mangle: fc.constantFrom('none', 'none', 'none', 'none', 'cut', 'flip'),
      at: fc.nat(),
    });
    const plain = fc.record({ text: fc.oneof(text, fc.constantFrom('abc', '====', 'AAAA', '-----BEGIN PGP')) });
    return fc.oneof({ weight: 4, arbitrary: sealed }, plain);
  }
  type Payload = ReturnType<typeof payload> extends fc.Arbitrary<infer T> ? T : never;

  async function payloadText(spec: Payload): Promise<string> {
    if ('text' in spec) return spec.text;
    const keys = spec.keys === 'agreed' ? firm.keys : strangers[spec.keys === 'unknown signer' ? 0 : 1]!;
    const sealed = await seal(spec.content, keys);
    if (spec.mangle === 'cut') return sealed.slice(0, spec.at % sealed.length);
    if (spec.mangle === 'none') return sealed;
    const bytes = Buffer.from(sealed, 'base64');
    bytes[spec.at % bytes.length]! ^= 0x41;
    return bytes.toString('base64');
  }

  /** The operation's answer: its failure shape when the payload cannot be opened, its own shape otherwise. */
  function assertAnswer(operation: Operation, body: Record<string, unknown>, unopenable: boolean, shown: string) {
    const failed = {
      create: body.isProcessed === false && body.fileData === undefined,
      submitDocuments: body.isProcessed === false && body.fileData === undefined,
      validateXML: body.isValid === false && Array.isArray(body.errors) && body.errors.length > 0,
      update: typeof body.error === 'string' && body.fileData === undefined,
      'sso/create': body.RESULT === false && typeof body.ERROR === 'string',
    }[operation];
    if (unopenable) return assert.ok(failed, `processed a payload it cannot open: ${shown}`);
    const fileData = body.fileData as { data?: unknown } | undefined;
    const shaped = {
      create: body.isProcessed === false || typeof fileData?.data === 'string',
      submitDocuments: body.isProcessed === false || typeof fileData?.data === 'string',
      validateXML: typeof body.isValid === 'boolean' && Array.isArray(body.errors),
      update: typeof body.error === 'string' || typeof fileData?.data === 'string',
      'sso/create': body.RESULT === false || typeof (body.SUCCESS as { SIGNED_URL?: unknown })?.SIGNED_URL === 'string',
    }[operation];
    assert.ok(shaped, shown);
  }

  async function post(path: string, body: string): Promise<{ status: number; text: string }> {
    const answer = await send(sim.url, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body });
    return { status: answer.status, text: answer.body.toString() };
  }

  it('answers envelopes of the file operations with their failure shape or a correct answer, never a 5xx', async function () {
    const cases = fc.constantFrom(...(Object.keys(OPERATIONS) as Operation[])).chain((operation) =>
      fc.record({
        operation: fc.constant(operation),
        csid: fc.oneof({ arbitrary: fc.constant(firm.csid), weight: 6 }, fc.constant('CSID-UNKNOWN'), mistyped),
        payload: payload(operation),
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ operation, csid, payload: spec }) => {
        const payloadField = await payloadText(spec);
        const sent = JSON.stringify({ CSID: csid, payload: payloadField });
        last = `${operation} ${sent}`;
        const answer = await post(OPERATIONS[operation], sent);
        const shown = `${operation}: ${answer.status} ${answer.text.slice(0, 300)}`;
        assert.ok(answer.status < 500, shown);
        const body = JSON.parse(answer.text) as Record<string, unknown>;
        if (csid !== firm.csid || payloadField === '') {
          assert.ok(answer.status >= 400 && body.isError === true && typeof body.error === 'string', shown);
        } else {
          assert.equal(answer.status, 200, shown);
          const unopenable = 'text' in spec || spec.keys !== 'agreed' || spec.mangle !== 'none';
          assertAnswer(operation, body, unopenable, shown);
        }
        const known = await post('/ws/eca/getAccountStatus', JSON.stringify({ CSID: firm.csid }));
        assert.equal(known.status, 200, `after the case: ${known.status} ${known.text.slice(0, 300)}`);
      }),
      fuzzParameters('simulator: file operation envelopes (payloads, archives, request XML)', 300),
    );
  });
});
