import assert from 'node:assert/strict';
import { sha1Hex } from '../../../eca/archive.js';
import { generateKeyPair, loadPrivateKey, seal } from '../../../eca/crypto.js';
import {
  buildSubmitDocumentsXml,
  parseCreateResponseXml,
  parseDocumentsReport,
  type DocumentInput,
} from '../../../eca/xml.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { applicationXml, control, createAccount, filePayload, op, openText, pdf, start, type Firm } from './helpers.js';

describe('simulator file operations', function () {
  let sim: RunningSimulator;
  let firm: Firm;

  before(async function () {
    ({ sim, firm } = await start());
  });
  after(async function () {
    await sim.close();
  });

  async function wrongKeyPayload(): Promise<string> {
    const stranger = await generateKeyPair({ name: 'Stranger', email: 'stranger@example.com' });
    const payload = await filePayload(firm.keys, { fileName: 'a.xml', content: applicationXml('x') });
    // Same content, signed by a key the brokerage does not know.
    return seal(new TextEncoder().encode(payload), {
      ownPrivateKey: await loadPrivateKey(stranger.privateKey),
      peerPublicKey: firm.keys.peerPublicKey,
    });
  }

  describe('validateXML', function () {
    it('accepts a structurally valid application', async function () {
      const payload = await filePayload(firm.keys, { fileName: 'app.xml', content: applicationXml('v-1') });
      const { status, body } = await op(sim, 'validateXML', { CSID: firm.csid, payload });
      assert.equal(status, 200);
      assert.equal(body.isValid, true);
      assert.deepEqual(body.errors, []);
      assert.equal(typeof body.batchId, 'number');
      assert.match(String(body.timestamp), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('reports one error per structural problem', async function () {
      const broken = applicationXml('v-2', { prefix: 'Jdoexa' })
        .replace(' first="Jane"', '')
        .replace('<Email email="jane.doe@example.com"/>', '')
        .replace('<objective>Growth</objective>', '');
      const payload = await filePayload(firm.keys, { fileName: 'app.xml', content: broken });
      const { body } = await op(sim, 'validateXML', { CSID: firm.csid, payload });
      assert.equal(body.isValid, false);
      const errors = (body.errors as Array<{ error: string }>).map((e) => e.error);
      assert.equal(errors.length, 4);
      assert.ok(errors.some((e) => e.includes('first name')));
      assert.ok(errors.some((e) => e.includes('e-mail')));
      assert.ok(errors.some((e) => e.includes('investment objectives')));
      assert.ok(errors.some((e) => e.includes('prefix')));
    });

    it("refuses an individual's application without the e-mail on Customer", async function () {
      const withoutEmail = applicationXml('v-3').replace(' email="jane.doe@example.com" external_id=', ' external_id=');
      assert.match(withoutEmail, /<Email email=/, "the holder's own e-mail is still there");
      const payload = await filePayload(firm.keys, { fileName: 'app.xml', content: withoutEmail });
      const { body } = await op(sim, 'validateXML', { CSID: firm.csid, payload });
      assert.equal(body.isValid, false);
      const errors = (body.errors as Array<{ error: string }>).map((e) => e.error);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /Customer: missing e-mail address of the individual/);
    });

    it('gives isValid false with an encryption error for wrong keys', async function () {
      const { body } = await op(sim, 'validateXML', { CSID: firm.csid, payload: await wrongKeyPayload() });
      assert.equal(body.isValid, false);
      const [first] = body.errors as Array<{ error: string }>;
      assert.match(first?.error ?? '', /Encryption error/);
      assert.equal(typeof body.batchId, 'number');
    });

    it('refuses an unknown CSID and a request without payload', async function () {
      assert.equal((await op(sim, 'validateXML', { CSID: 'NOPE', payload: 'AAAA' })).status, 401);
      assert.equal((await op(sim, 'validateXML', { CSID: firm.csid })).status, 400);
    });
  });

  describe('create and getResponseFile', function () {
    it('creates an account with user name and temporary password, retrievable by external id', async function () {
      const { accountId, userName, responseXml, body } = await createAccount(sim, firm, 'create-1');
      // The brokerage's create response file: the user name as the User element's text, the account with its status.
      assert.match(responseXml, new RegExp(`<User user_id="\\d+" password="[^"]+">${userName}</User>`));
      assert.match(responseXml, new RegExp(`<Account status="N">${accountId}</Account>`));
      assert.match(responseXml, /<Entities>\s*<Entity entity_id="\d+" external_id="EXT-1-HOLDER"\/>\s*<\/Entities>/);
      assert.match(String(body.name), /^DemoFirm_\d{8}_\d{4}_\d{4}\.xml\.report$/);
      // Spec, create response: timestamp, isProcessed, batchId, name, fileData.data: exactly those.
      assert.deepEqual(Object.keys(body).sort(), ['batchId', 'fileData', 'isProcessed', 'name', 'timestamp']);
      assert.deepEqual(Object.keys(body.fileData as object), ['data']);
      const parsed = parseCreateResponseXml(responseXml);
      assert.equal(parsed.applications[0]?.externalId, 'create-1');
      assert.ok(parsed.applications[0]?.temporaryPassword);
      assert.match(accountId, /^U\d{7}$/);
      assert.ok(userName.startsWith('jdoexa'));

      // Spec, getResponseFile: "Fields: `isProcessed`, `timestamp`, `name`, `isError`, `error`,
      // `Clearing Status`": exactly those, no file content and no account id.
      const { body: file } = await op(sim, 'getResponseFile', { CSID: firm.csid, externalId: 'create-1' });
      const [entry] = file.result as Array<Record<string, unknown>>;
      assert.deepEqual(Object.keys(entry ?? {}).sort(), [
        'Clearing Status',
        'isError',
        'isProcessed',
        'name',
        'timestamp',
      ]);
      assert.equal(entry?.isProcessed, 'true');
      assert.equal(entry?.['Clearing Status'], 'N');
      assert.equal(entry?.name, body.name);
      // The account is found from spec fields: getFileDetails lists its Response File Name.
      const { body: details } = await op(sim, 'getFileDetails', { CSID: firm.csid, accountIds: [accountId] });
      assert.equal((details.result as Array<Record<string, unknown>>)[0]?.['Response File Name'], body.name);
    });

    it('makes a second account for an external id sent again (the spec promises nothing else)', async function () {
      const first = await createAccount(sim, firm, 'create-twice');
      const second = await createAccount(sim, firm, 'create-twice');
      assert.notEqual(second.accountId, first.accountId);
      const { body } = await op(sim, 'getResponseFile', { CSID: firm.csid, externalId: 'create-twice' });
      assert.deepEqual(
        (body.result as Array<{ name: string }>).map((entry) => entry.name),
        [first.body.name, second.body.name],
      );
    });

    it('lists the tasks of a new application in Pending_Tasks', async function () {
      const { responseXml } = await createAccount(sim, firm, 'docs-required-create');
      const [application] = parseCreateResponseXml(responseXml).applications;
      assert.deepEqual(
        application?.pendingTasks.map((task) => [task.formNumber, task.action, task.isRequiredForApproval]),
        [
          ['8001', 'to send', true],
          ['8002', 'to send', true],
        ],
      );
    });

    it('with repeatedExternalId already-processed, answers a repeated external id with Status Already processed and no account', async function () {
      await control(sim, 'PUT', '/repeated-external-id', { answer: 'already-processed' });
      try {
        const first = await createAccount(sim, firm, 'create-again');
        const payload = await filePayload(firm.keys, {
          fileName: 'again.xml',
          content: applicationXml('create-again'),
        });
        const { body } = await op(sim, 'create', { CSID: firm.csid, payload });
        assert.equal(body.isProcessed, true);
        assert.notEqual(body.name, first.body.name);
        const responseXml = await openText(firm.keys, (body.fileData as { data: string }).data);
        assert.match(responseXml, /<Application External_ID="create-again" Status="Already processed"\/>/);
        const [application] = parseCreateResponseXml(responseXml).applications;
        assert.equal(application?.alreadyProcessed, true);
        assert.equal(application?.accountId, undefined);
        // By the simulator's records: one account; getResponseFile still lists the one file that made it.
        const records = await control(sim, 'GET', '/records?externalId=create-again');
        const [entry] = records.body.externalIds as Array<{ accountsCreated: number }>;
        assert.equal(entry?.accountsCreated, 1);
        const { body: file } = await op(sim, 'getResponseFile', { CSID: firm.csid, externalId: 'create-again' });
        assert.deepEqual(
          (file.result as Array<{ name: string }>).map((item) => item.name),
          [first.body.name],
        );
        // An external id whose earlier create failed is no repeat: its corrected application opens the account.
        const failedPayload = await filePayload(firm.keys, {
          fileName: 'failed.xml',
          content: applicationXml('create-after-error').replace(' last="Doe"', ''),
        });
        await op(sim, 'create', { CSID: firm.csid, payload: failedPayload });
        assert.match((await createAccount(sim, firm, 'create-after-error')).accountId, /^U\d{7}$/);
      } finally {
        await control(sim, 'PUT', '/repeated-external-id', { answer: 'second-account' });
      }
      const again = await createAccount(sim, firm, 'create-again');
      assert.match(again.accountId, /^U\d{7}$/);
    });

    it('refuses (isProcessed false) an application file outside the import-schema namespace', async function () {
      const content = applicationXml('create-elsewhere').replace(/xmlns="[^"]*"/, 'xmlns="urn:eca-example:other"');
      const payload = await filePayload(firm.keys, { fileName: 'elsewhere.xml', content });
      const { body } = await op(sim, 'create', { CSID: firm.csid, payload });
      assert.equal(body.isProcessed, false);
      const validated = await op(sim, 'validateXML', { CSID: firm.csid, payload });
      assert.equal(validated.body.isValid, false);
      assert.match(String((validated.body.errors as Array<{ error: string }>)[0]?.error), /namespace/);
    });

    it('gives isProcessed false for wrong keys and for XML that is not well-formed', async function () {
      const wrong = await op(sim, 'create', { CSID: firm.csid, payload: await wrongKeyPayload() });
      assert.equal(wrong.body.isProcessed, false);
      assert.equal(wrong.body.fileData, undefined);
      const payload = await filePayload(firm.keys, { fileName: 'bad.xml', content: '<Applications><Application>' });
      const malformed = await op(sim, 'create', { CSID: firm.csid, payload });
      assert.equal(malformed.body.isProcessed, false);
      // Spec, create response: timestamp, isProcessed, batchId; name and fileData.data "only when isProcessed is
      // true". No error field is listed, so none is sent.
      assert.deepEqual(Object.keys(malformed.body).sort(), ['batchId', 'isProcessed', 'timestamp']);
    });

    it('reports structural errors per application in the response file, without an account', async function () {
      const content = applicationXml('create-bad').replace('last="Doe"', '');
      const payload = await filePayload(firm.keys, { fileName: 'bad.xml', content });
      const { body } = await op(sim, 'create', { CSID: firm.csid, payload });
      assert.equal(body.isProcessed, true);
      const parsed = parseCreateResponseXml(await openText(firm.keys, (body.fileData as { data: string }).data));
      assert.equal(parsed.applications[0]?.succeeded, false);
      assert.match(parsed.applications[0]?.errors[0] ?? '', /last name/);
      // Spec, getResponseFile: "The failure entry holds `name`, `isError` true and `error`".
      const { body: file } = await op(sim, 'getResponseFile', { CSID: firm.csid, externalId: 'create-bad' });
      const [failure] = file.result as Array<Record<string, unknown>>;
      assert.deepEqual(Object.keys(failure ?? {}).sort(), ['error', 'isError', 'name']);
      assert.equal(failure?.name, body.name);
      assert.equal(failure?.isError, true);
    });

    it('refuses another firm the response file of an external id', async function () {
      await createAccount(sim, firm, 'create-private');
      const other = await control(sim, 'POST', '/firms', { name: 'OtherFirm' });
      const { body } = await op(sim, 'getResponseFile', { CSID: other.body.csid, externalId: 'create-private' });
      const [entry] = body.result as Array<Record<string, unknown>>;
      assert.equal(entry?.isError, true);
      assert.match(String(entry?.error), /not authorized to view the response file for external id create-private/);
    });
  });

  describe('submitDocuments', function () {
    function documents(files: Array<{ formNumber: string; fileName: string; data: Uint8Array }>): DocumentInput[] {
      return files.map((file) => ({
        formNumber: file.formNumber,
        execTs: '20250108093000',
        execLoginTs: '20250108092500',
        files: [{ fileName: file.fileName, sha1: sha1Hex(file.data), length: file.data.byteLength }],
      }));
    }

    async function submit(
      files: Array<{ formNumber: string; fileName: string; data: Uint8Array }>,
      declared?: string,
      as: Firm = firm,
    ) {
      const input = documents(files);
      if (declared !== undefined && input[0]?.files[0]) input[0].files[0].sha1 = declared;
      return submitXml(buildSubmitDocumentsXml({ documents: input }), files, as);
    }

    async function submitXml(
      xml: string,
      files: Array<{ formNumber: string; fileName: string; data: Uint8Array }>,
      as: Firm = firm,
    ) {
      const payload = await filePayload(
        as.keys,
        { fileName: 'documents.xml', content: xml },
        files.map((file) => ({ fileName: file.fileName, data: file.data })),
      );
      return op(sim, 'submitDocuments', { CSID: as.csid, payload });
    }

    async function registerFirm(name: string, firmType: string): Promise<Firm> {
      const registered = await control(sim, 'POST', '/firms', { name, firmType });
      const keys = registered.body.keys as { firmPrivateKey: string };
      return {
        csid: String(registered.body.csid),
        keys: { ownPrivateKey: await loadPrivateKey(keys.firmPrivateKey), peerPublicKey: firm.keys.peerPublicKey },
      };
    }

    // Spec, request XML: AttachedFile is "one or more per Document".
    it('refuses (isProcessed false) a Document that holds no AttachedFile', async function () {
      const agreement = pdf('customer agreement');
      const disclosure = pdf('disclosure');
      // Forms no other test submits: a processed submission would archive them.
      const input = documents([
        { formNumber: '4711', fileName: 'agreement.pdf', data: agreement },
        { formNumber: '4712', fileName: 'disclosure.pdf', data: disclosure },
      ]);
      // The engine's builder refuses to write such a Document: the second one's file is taken out.
      const xml = buildSubmitDocumentsXml({ documents: input }).replace(
        /<AttachedFile\b[^>]*?file_name="disclosure\.pdf"[^>]*?(?:\/>|>[\s\S]*?<\/AttachedFile>)/,
        '',
      );
      assert.doesNotMatch(xml, /disclosure\.pdf/);
      const { body } = await submitXml(xml, [{ formNumber: '4711', fileName: 'agreement.pdf', data: agreement }]);
      assert.equal(body.isProcessed, false);
      assert.equal(body.fileData, undefined);
    });

    // Spec, request XML: "AttachedFile | element, one or more per Document | The PDF"; rule 8: "The file_name in the
    // XML equals the PDF name in the archive".
    it('archives every AttachedFile of a Document, each checked against its own original', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const parts = [
        { formNumber: '4720', fileName: 'form-4720-part1.pdf', data: pdf('form 4720, part one') },
        { formNumber: '4720', fileName: 'form-4720-part2.pdf', data: pdf('form 4720, part two') },
      ];
      const xmlOf = (files: typeof parts) =>
        buildSubmitDocumentsXml({
          documents: [
            {
              formNumber: '4720',
              execTs: '20250108093000',
              execLoginTs: '20250108092500',
              files: files.map((file) => ({
                fileName: file.fileName,
                sha1: sha1Hex(file.data),
                length: file.data.byteLength,
              })),
            },
          ],
        });
      const statuses = async (files: typeof parts) => {
        const { body } = await submitXml(xmlOf(files), files);
        assert.equal(body.isProcessed, true);
        const report = parseDocumentsReport(await openText(firm.keys, (body.fileData as { data: string }).data));
        return report.documents.map((document) => [document.fileName, document.status, document.checksumMismatch]);
      };
      assert.deepEqual(await statuses(parts), [
        ['form-4720-part1.pdf', 'Accepted', undefined],
        ['form-4720-part2.pdf', 'Accepted', undefined],
      ]);
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      assert.deepEqual(await statuses(parts), [
        ['form-4720-part1.pdf', 'Accepted', undefined],
        ['form-4720-part2.pdf', 'Accepted', undefined],
      ]);
      // A changed second part is measured against the second part's original, not the first's.
      const edited = { ...parts[1]!, data: pdf('form 4720, part two, edited') };
      const [first, second] = await statuses([parts[0]!, edited]);
      assert.deepEqual(first, ['form-4720-part1.pdf', 'Accepted', undefined]);
      assert.deepEqual(second?.[2], { stored: sha1Hex(parts[1]!.data), received: sha1Hex(edited.data) });
    });

    it('processes a second submission of the same day (rule 1 binds the caller), archives forms, reports a changed form with both checksums', async function () {
      const agreement = pdf('customer agreement v1');
      const first = await submit([
        { formNumber: '3230', fileName: 'agreement.pdf', data: agreement },
        { formNumber: '3231', fileName: 'disclosure.pdf', data: pdf('disclosure') },
      ]);
      assert.equal(first.body.isProcessed, true);
      const fileData = first.body.fileData as { name: string; data: string };
      assert.match(fileData.name, /^DemoFirm_\d{8}_\d{4}_\d{4}\.xml\.report$/);
      const report = parseDocumentsReport(await openText(firm.keys, fileData.data));
      assert.deepEqual(
        report.documents.map((d) => [d.formNumber, d.status]),
        [
          ['3230', 'Accepted'],
          ['3231', 'Accepted'],
        ],
      );
      assert.equal(report.client, 'DemoFirm');
      assert.match(report.version ?? '', /^\d{2}-[A-Z][a-z]{2}-\d{4}$/);

      // Spec, submitDocuments rule 1: "Send once a day, before the application XML files are submitted." No
      // refusal of a second submission is shown: the simulator takes it (the hardest answer: a resend is a duplicate).
      const sameDay = await submit([{ formNumber: '3230', fileName: 'agreement.pdf', data: agreement }]);
      assert.equal(sameDay.body.isProcessed, true);
      assert.ok(sameDay.body.fileData);

      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const changed = pdf('customer agreement, edited');
      const next = await submit([{ formNumber: '3230', fileName: 'agreement.pdf', data: changed }]);
      const nextReport = parseDocumentsReport(await openText(firm.keys, (next.body.fileData as { data: string }).data));
      const [document] = nextReport.documents;
      assert.equal(document?.accepted, false);
      assert.deepEqual(document?.checksumMismatch, { stored: sha1Hex(agreement), received: sha1Hex(changed) });
    });

    it('reports a file whose SHA-1 differs from the one the XML quotes', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const data = pdf('fresh form');
      const declared = 'a'.repeat(40);
      const { body } = await submit([{ formNumber: '9999', fileName: 'fresh.pdf', data }], declared);
      const report = parseDocumentsReport(await openText(firm.keys, (body.fileData as { data: string }).data));
      assert.deepEqual(report.documents[0]?.checksumMismatch, { stored: declared, received: sha1Hex(data) });
    });

    // Spec, submitDocuments rule 4: "Applies to fully disclosed clients (individual, joint, retirement) and advisor
    // clients (individual, joint, retirement)". Response: "fileData appears only when isProcessed is true".
    it('refuses a non-disclosed firm (rule 4: "Applies to fully disclosed clients ... and advisor clients")', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const files = [{ formNumber: '3230', fileName: 'agreement.pdf', data: pdf('non-disclosed agreement') }];
      const hidden = await registerFirm('HiddenDocsFirm', 'non-disclosed');
      const refused = await submit(files, undefined, hidden);
      assert.equal(refused.status, 200);
      assert.equal(refused.body.isProcessed, false);
      assert.deepEqual(Object.keys(refused.body).sort(), ['isProcessed', 'timestamp'], 'only the spec fields');

      const disclosed = await registerFirm('DisclosedDocsFirm', 'fully-disclosed');
      const accepted = await submit(files, undefined, disclosed);
      assert.equal(accepted.body.isProcessed, true);
      assert.ok(accepted.body.fileData);
    });

    // Spec, document entry: "Document@exec_ts | `YYYYMMDDHHMMSS`", "Document@exec_login_ts | `YYYYMMDDHHMMSS`".
    it('refuses exec_ts or exec_login_ts in any other form than YYYYMMDDHHMMSS', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const files = [{ formNumber: '3240', fileName: 'timed.pdf', data: pdf('timed form') }];
      const valid = buildSubmitDocumentsXml({ documents: documents(files) });
      const cases: Array<[from: string, to: string]> = [
        ['exec_ts="20250108093000"', 'exec_ts="2026-01-01 10:00:00"'],
        ['exec_ts="20250108093000"', 'exec_ts="2025-01-08T09:30:00Z"'],
        ['exec_ts="20250108093000"', 'exec_ts="20251308093000"'],
        ['exec_login_ts="20250108092500"', 'exec_login_ts="202501080925"'],
      ];
      for (const [from, to] of cases) {
        const xml = valid.replace(from, to);
        assert.notEqual(xml, valid);
        const { body } = await submitXml(xml, files);
        assert.equal(body.isProcessed, false, to);
        assert.equal(body.fileData, undefined, to);
      }
      assert.equal((await submitXml(valid, files)).body.isProcessed, true);
    });

    // Spec: "The request file root is an import-schema element named AcctMgmtRequests in the namespace
    // {import_schema_namespace}".
    it('refuses an AcctMgmtRequests root outside the import-schema namespace', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const files = [{ formNumber: '3241', fileName: 'spaced.pdf', data: pdf('namespaced form') }];
      const valid = buildSubmitDocumentsXml({ documents: documents(files) });
      assert.match(valid, /<AcctMgmtRequests xmlns="http:\/\/www\.interactivebrokers\.com\/schemas\/IBCust_import">/);
      const elsewhere = valid.replace(/xmlns="[^"]*"/, 'xmlns="urn:example:other"');
      const none = valid.replace(/ xmlns="[^"]*"/, '');
      const prefixed = valid
        .replace(/<AcctMgmtRequests xmlns="([^"]*)">/, '<ib:AcctMgmtRequests xmlns:ib="$1" xmlns="urn:example:other">')
        .replace('</AcctMgmtRequests>', '</ib:AcctMgmtRequests>');
      for (const xml of [elsewhere, none]) {
        assert.notEqual(xml, valid);
        const { body } = await submitXml(xml, files);
        assert.equal(body.isProcessed, false);
      }
      // The namespace counts, not the way it is written: a prefixed root in the import-schema namespace is taken.
      assert.equal((await submitXml(prefixed, files)).body.isProcessed, true);
    });

    it('gives isProcessed false for wrong keys', async function () {
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      const { body } = await op(sim, 'submitDocuments', { CSID: firm.csid, payload: await wrongKeyPayload() });
      assert.equal(body.isProcessed, false);
    });
  });
});
