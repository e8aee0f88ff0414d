import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { EcaRequestError, EcaSchemaError } from '../../../eca/errors.js';
import {
  buildDocumentSubmissionXml,
  buildSubmitDocumentsXml,
  buildUpdateRequestXml,
  DEFAULT_IMPORT_NAMESPACE,
  parseChecksumMismatch,
  parseCreateResponseXml,
  parseDocumentsReport,
} from '../../../eca/xml.js';
import {
  buildCreateResponseXml,
  buildDocumentsReport,
  formatChecksumMismatchStatus,
} from '../../../simulator/formats/report-xml.js';
import { rootNamespace } from '../../../eca/xml-tree.js';
import { parseSubmitDocumentsXml, parseUpdateRequestXml } from '../../../simulator/formats/request-xml.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = '0123456789abcdef0123456789abcdef01234567';

const documents = [
  {
    formNumber: '3024',
    execTs: new Date('2024-05-01T10:11:12Z'),
    execLoginTs: '20240501100000',
    files: [{ fileName: 'Form 3024 & co.pdf', sha1: SHA_A.toUpperCase(), length: 1234 }],
  },
  {
    formNumber: '4024',
    execTs: '2024-05-01T12:00:00+02:00',
    execLoginTs: new Date('2024-05-01T09:59:00Z'),
    files: [
      { fileName: 'a.pdf', sha1: SHA_B, length: 1 },
      { fileName: 'b.pdf', sha1: SHA_A, length: 0 },
    ],
  },
];

/** An independent reading of the written XML, with attribute prefixes, to check the exact wire names. */
const raw = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => name === 'Document',
});

describe('eca/xml: request and report XML', function () {
  it('writes the submitDocuments request with the spec names, UTC compact timestamps and lower-case checksums', function () {
    const xml = buildSubmitDocumentsXml({ documents });
    const tree = raw.parse(xml) as {
      AcctMgmtRequests: { '@xmlns': string; ProcessDocuments: { Document: Array<Record<string, unknown>> } };
    };
    assert.equal(tree.AcctMgmtRequests['@xmlns'], DEFAULT_IMPORT_NAMESPACE);
    const [first, second] = tree.AcctMgmtRequests.ProcessDocuments.Document;
    assert.equal(first?.['@form_no'], '3024');
    assert.equal(first?.['@exec_ts'], '20240501101112');
    assert.equal(first?.['@exec_login_ts'], '20240501100000');
    assert.deepEqual(first?.AttachedFile, {
      '@file_name': 'Form 3024 & co.pdf',
      '@sha1_checksum': SHA_A,
      '@file_length': '1234',
    });
    assert.equal(second?.['@exec_ts'], '20240501100000');
    assert.equal(second?.['@exec_login_ts'], '20240501095900');
  });

  it('round-trips the submitDocuments request through the brokerage-side parser, in the import-schema namespace', function () {
    const xml = buildSubmitDocumentsXml({ documents });
    assert.match(xml, /<AcctMgmtRequests xmlns="http:\/\/www\.interactivebrokers\.com\/schemas\/IBCust_import">/);
    const elsewhere = buildSubmitDocumentsXml({ namespace: 'urn:brokerage:import', documents });
    assert.match(elsewhere, /<AcctMgmtRequests xmlns="urn:brokerage:import">/);
    assert.throws(() => parseSubmitDocumentsXml(elsewhere), /namespace/);
    const parsed = parseSubmitDocumentsXml(xml);
    assert.equal(parsed.documents.length, 2);
    assert.equal(parsed.documents[0]?.formNumber, '3024');
    assert.equal(parsed.documents[0]?.execTs.date?.toISOString(), '2024-05-01T10:11:12.000Z');
    assert.deepEqual(parsed.documents[0]?.files, [{ fileName: 'Form 3024 & co.pdf', sha1: SHA_A, length: 1234 }]);
    assert.deepEqual(
      parsed.documents[1]?.files.map((file) => file.fileName),
      ['a.pdf', 'b.pdf'],
    );
  });

  it('refuses bad document input before writing, naming the parameter', function () {
    const check = (mutate: (copy: (typeof documents)[number]) => void, parameter: string): void => {
      const copy = structuredClone(documents[0]!);
      mutate(copy);
      assert.throws(
        () => buildSubmitDocumentsXml({ documents: [copy] }),
        (error: unknown) => error instanceof EcaRequestError && error.parameter === parameter,
      );
    };
    check((copy) => (copy.files[0]!.sha1 = 'xyz'), 'documents[0].files[0].sha1');
    check((copy) => (copy.files[0]!.length = -1), 'documents[0].files[0].length');
    check((copy) => (copy.files[0]!.fileName = '../etc.pdf'), 'documents[0].files[0].fileName');
    check((copy) => (copy.execLoginTs = '2024-05-01 10:00'), 'documents[0].execLoginTs');
    check((copy) => (copy.formNumber = ''), 'documents[0].formNumber');
    check((copy) => (copy.files = []), 'documents[0].files');
    assert.throws(() => buildSubmitDocumentsXml({ documents: [] }), EcaRequestError);
  });

  it('writes DocumentSubmission for update and reads it back as an update request', function () {
    const xml = buildDocumentSubmissionXml({ accountId: 'U1234567', documents });
    const [request, ...others] = parseUpdateRequestXml(xml);
    assert.equal(others.length, 0);
    assert.equal(request?.functionName, 'DocumentSubmission');
    assert.equal(request?.accountId, 'U1234567');
    assert.equal(request?.documents?.length, 2);
    assert.equal(request?.documents?.[1]?.files[0]?.sha1, SHA_B);
  });

  it('wraps any function body in AcctMgmtRequests and parses the function, account and attributes', function () {
    const abandon = buildUpdateRequestXml({ accountId: 'U123', functionName: 'AbandonAccount' });
    assert.match(abandon, /<AcctMgmtRequests xmlns="[^"]+"><AbandonAccount ib_acct="U123"\/><\/AcctMgmtRequests>/);
    assert.deepEqual(
      parseUpdateRequestXml(abandon).map(({ functionName, accountId, attributes }) => ({
        functionName,
        accountId,
        attributes,
      })),
      [{ functionName: 'AbandonAccount', accountId: 'U123', attributes: { ib_acct: 'U123' } }],
    );

    const external = buildUpdateRequestXml({
      accountId: 'U9',
      functionName: 'UpdateExternalId',
      attributes: { note: 'a "quoted" <value>' },
      bodyXml: '<ExternalId>EXT-2</ExternalId>',
    });
    const [parsed] = parseUpdateRequestXml(external);
    assert.equal(parsed?.attributes.note, 'a "quoted" <value>');
    assert.equal(parsed?.element.children[0]?.name, 'ExternalId');
    assert.equal(parsed?.element.children[0]?.text, 'EXT-2');

    assert.throws(
      () => buildUpdateRequestXml({ functionName: 'Bad Name' }),
      (error: unknown) => error instanceof EcaRequestError && error.parameter === 'functionName',
    );
    assert.throws(
      () => buildUpdateRequestXml({ functionName: 'X', bodyXml: '<open>' }),
      (error: unknown) => error instanceof EcaRequestError && error.parameter === 'bodyXml',
    );
  });

  it('defines the checksum-mismatch status text and reads it (and labelled variants) back', function () {
    const text = formatChecksumMismatchStatus('a.pdf', SHA_A, SHA_B.toUpperCase());
    assert.equal(text, `File a.pdf has a different SHA-1 checksum: stored ${SHA_A}, received ${SHA_B}`);
    assert.deepEqual(parseChecksumMismatch(text), { stored: SHA_A, received: SHA_B });
    assert.deepEqual(parseChecksumMismatch(`checksum differs; received=${SHA_B} stored=${SHA_A}`), {
      stored: SHA_A,
      received: SHA_B,
    });
    assert.equal(parseChecksumMismatch('Missing signature'), undefined);
  });

  // Spec, submitDocuments report: Status "gives the stored and the received values" (their order: not shown).
  it('tells the stored from the received checksum by the SHA-1 sent, never by their order', function () {
    const receivedFirst = formatChecksumMismatchStatus('a.pdf', SHA_A, SHA_B, true);
    assert.equal(receivedFirst, `File a.pdf has a different SHA-1 checksum (${SHA_B} / ${SHA_A})`);
    assert.deepEqual(parseChecksumMismatch(receivedFirst, SHA_B), { stored: SHA_A, received: SHA_B });
    const storedFirst = `File a.pdf has a different SHA-1 checksum (${SHA_A} / ${SHA_B})`;
    assert.deepEqual(parseChecksumMismatch(storedFirst, SHA_B.toUpperCase()), { stored: SHA_A, received: SHA_B });
    // Unlabelled without the digest sent, the digest sent not among them, labels that say otherwise: nothing read.
    assert.equal(parseChecksumMismatch(receivedFirst), undefined);
    assert.equal(parseChecksumMismatch(receivedFirst, 'c'.repeat(40)), undefined);
    assert.equal(parseChecksumMismatch(formatChecksumMismatchStatus('a.pdf', SHA_B, SHA_A), SHA_B), undefined);
    assert.equal(parseChecksumMismatch(`checksum ${SHA_A} ${SHA_B} ${'c'.repeat(40)}`, SHA_B), undefined);
    const report = parseDocumentsReport(
      buildDocumentsReport({
        checksumReceivedFirst: true,
        documents: [{ formNumber: '5024', fileName: 'c.pdf', checksumMismatch: { stored: SHA_A, received: SHA_B } }],
      }),
      [{ formNumber: '5024', fileName: 'c.pdf', sha1: SHA_B }],
    );
    assert.deepEqual(report.documents[0]?.checksumMismatch, { stored: SHA_A, received: SHA_B });
    assert.equal(report.documents[0]?.accepted, false);
  });

  it('round-trips a report in the ProcessDocuments layout', function () {
    const xml = buildDocumentsReport({
      version: '15-Mar-2021',
      executionDate: new Date('2024-05-01T10:00:00Z'),
      processFile: 'Firm_2024-05-01_0001_0001.xml',
      client: 'Firm',
      clientMasterAcct: 'F1234567',
      documents: [
        { formNumber: '3024', fileName: 'a.pdf' },
        { formNumber: '4024', fileName: 'b.pdf', status: 'Form version is outdated' },
        { formNumber: '5024', fileName: 'c.pdf', checksumMismatch: { stored: SHA_A, received: SHA_B } },
      ],
    });
    assert.match(xml, /<Execution_Date>2024\/05\/01 10:00:00<\/Execution_Date>/);
    assert.match(xml, /<Process>\s*<Execution ECA_XML_XSD_Version="15-Mar-2021">/);
    assert.match(
      xml,
      /<ProcessDocuments>\s*<Documents>\s*<Document Form_Number="3024" File_Name="a.pdf" Status="Accepted"\/>/,
    );
    const report = parseDocumentsReport(xml);
    assert.equal(report.version, '15-Mar-2021');
    assert.equal(report.executionDate?.raw, '2024/05/01 10:00:00');
    assert.equal(report.executionDate?.date?.toISOString(), '2024-05-01T10:00:00.000Z');
    assert.equal(report.processFile, 'Firm_2024-05-01_0001_0001.xml');
    assert.equal(report.client, 'Firm');
    assert.equal(report.clientMasterAcct, 'F1234567');
    assert.equal(report.accountId, undefined);
    assert.deepEqual(report.documents, [
      { formNumber: '3024', fileName: 'a.pdf', status: 'Accepted', accepted: true },
      {
        formNumber: '4024',
        fileName: 'b.pdf',
        status: 'Form version is outdated',
        accepted: false,
        reason: 'Form version is outdated',
      },
      {
        formNumber: '5024',
        fileName: 'c.pdf',
        status: formatChecksumMismatchStatus('c.pdf', SHA_A, SHA_B),
        accepted: false,
        reason: formatChecksumMismatchStatus('c.pdf', SHA_A, SHA_B),
        checksumMismatch: { stored: SHA_A, received: SHA_B },
      },
    ]);
  });

  it('reads the DocumentSubmission@ib_acct layout, written or hand-made', function () {
    const written = parseDocumentsReport(
      buildDocumentsReport({ accountId: 'U55', documents: [{ formNumber: '1', fileName: 'x.pdf', status: 'Blurry' }] }),
    );
    assert.equal(written.accountId, 'U55');
    assert.deepEqual(written.documents[0], {
      formNumber: '1',
      fileName: 'x.pdf',
      status: 'Blurry',
      accepted: false,
      reason: 'Blurry',
      accountId: 'U55',
    });
    // A brokerage file with a namespace prefix and documents directly under DocumentSubmission.
    const handMade = `<?xml version="1.0"?>
      <p:Process xmlns:p="urn:x"><p:Execution ECA_XML_XSD_Version="01-Jan-2024"/>
        <p:DocumentSubmission ib_acct="U77"><p:Document Form_Number="9" File_Name="y.pdf" Status="accepted"/></p:DocumentSubmission>
      </p:Process>`;
    const report = parseDocumentsReport(handMade);
    assert.equal(report.accountId, 'U77');
    assert.equal(report.documents[0]?.accepted, true);
  });

  it('raises EcaSchemaError for malformed or foreign report XML', function () {
    assert.throws(() => parseDocumentsReport('<Process><Execution></Process>'), EcaSchemaError);
    assert.throws(() => parseDocumentsReport('<Other/>'), EcaSchemaError);
    assert.throws(
      () => parseDocumentsReport('<!DOCTYPE x [<!ENTITY a "b">]><Process/>'),
      (error: unknown) => error instanceof EcaSchemaError && /DOCTYPE/.test(error.message),
    );
  });

  it('raises EcaSchemaError for XML the parser refuses although it is well-formed: deep nesting, reserved names', function () {
    const deep = `<Process>${'<Documents>'.repeat(150)}${'</Documents>'.repeat(150)}</Process>`;
    for (const xml of [deep, '<Process><constructor/></Process>', '<Process><Document __proto__="1"/></Process>']) {
      assert.throws(() => parseDocumentsReport(xml), EcaSchemaError, xml.slice(0, 40));
      assert.throws(() => parseCreateResponseXml(xml), EcaSchemaError, xml.slice(0, 40));
      assert.throws(() => rootNamespace(xml), EcaSchemaError, xml.slice(0, 40));
    }
  });

  it('round-trips the create response, keeping the temporary password secret', function () {
    const xml = buildCreateResponseXml({
      client: 'Firm',
      applications: [
        {
          externalId: 'EXT-1',
          status: 'Success',
          accounts: [{ accountId: 'U1234567', status: 'N' }],
          users: [{ userName: 'jdoexa123', userId: '1234567', temporaryPassword: 'Tmp!pa55' }],
          entities: [{ entityId: '12345671', externalId: 'EXT-1-HOLDER' }],
          pendingTasks: [
            {
              formNumber: '8001',
              formName: 'Proof of Identity',
              action: 'to send',
              isRequiredForApproval: true,
              isRequiredForTrading: false,
              isOnlineTask: false,
              state: 'To Be Sent',
            },
          ],
        },
        { externalId: 'EXT-2', status: 'Error', errors: ['missing first name', 'missing last name'] },
        { externalId: 'EXT-3', status: 'Already processed' },
      ],
    });
    const response = parseCreateResponseXml(xml);
    assert.equal(response.client, 'Firm');
    const [ok, failed, repeated] = response.applications;
    assert.equal(ok?.externalId, 'EXT-1');
    assert.ok(ok?.succeeded);
    assert.equal(ok?.alreadyProcessed, false);
    assert.equal(ok?.accountId, 'U1234567');
    assert.equal(ok?.accountStatus, 'N');
    assert.deepEqual(ok?.accounts, [{ accountId: 'U1234567', status: 'N' }]);
    assert.equal(ok?.userName, 'jdoexa123');
    assert.equal(ok?.users[0]?.userId, '1234567');
    assert.deepEqual(ok?.pendingTasks, [
      {
        formNumber: '8001',
        formName: 'Proof of Identity',
        action: 'to send',
        isRequiredForApproval: true,
        isRequiredForTrading: false,
        isOnlineTask: false,
        state: 'To Be Sent',
      },
    ]);
    assert.equal(ok?.temporaryPassword?.reveal(), 'Tmp!pa55');
    assert.doesNotMatch(JSON.stringify(response), /Tmp!pa55/);
    assert.doesNotMatch(String(ok?.temporaryPassword), /Tmp!pa55/);
    assert.doesNotMatch(inspect(response, { depth: 10 }), /Tmp!pa55/);
    assert.equal(failed?.succeeded, false);
    assert.equal(failed?.alreadyProcessed, false);
    assert.deepEqual(failed?.status, { raw: 'Error', known: true, status: 'Error' });
    assert.deepEqual(failed?.errors, ['missing first name', 'missing last name']);
    assert.equal(failed?.temporaryPassword, undefined);
    assert.deepEqual(repeated?.status, { raw: 'Already processed', known: true, status: 'Already processed' });
    assert.equal(repeated?.alreadyProcessed, true);
    assert.equal(repeated?.succeeded, false);
    assert.equal(repeated?.accountId, undefined);
    assert.deepEqual(repeated?.accountIds, []);
  });

  it("reads a create response file as the brokerage writes it: the user name is the User element's text", function () {
    const response = parseCreateResponseXml(`<?xml version="1.0" encoding="UTF-8"?>
<Process>
  <Execution ECA_XML_XSD_Version="01-Jan-2024">
    <Execution_Date>2024/05/01 10:00:00</Execution_Date>
    <Process_File>Firm_2024-05-01_0001_0001.xml</Process_File>
  </Execution>
  <Applications>
    <Application External_ID="EXT-9" Status="Success">
      <Users><User user_id="99001" password="Secret#1">abcdef123</User></Users>
      <Accounts><Account status="N">U9900001</Account></Accounts>
      <Entities><Entity entity_id="556677"/></Entities>
      <Pending_Tasks>
        <Task Form_Number="3230" Form_Name="Customer Agreement" Action="to sign" Is_Required_For_Approval="Yes"/>
      </Pending_Tasks>
    </Application>
    <Application External_ID="EXT-10" Status="already  processed"/>
  </Applications>
</Process>`);
    const [application, again] = response.applications;
    assert.equal(application?.userName, 'abcdef123');
    assert.equal(application?.temporaryPassword?.reveal(), 'Secret#1');
    assert.equal(application?.accountId, 'U9900001');
    assert.equal(application?.accountStatus, 'N');
    assert.deepEqual(application?.pendingTasks, [
      { formNumber: '3230', formName: 'Customer Agreement', action: 'to sign', isRequiredForApproval: true },
    ]);
    assert.equal(again?.alreadyProcessed, true);
    assert.equal(again?.status.status, 'Already processed');
  });

  it('flags an unknown create status instead of failing', function () {
    const response = parseCreateResponseXml(
      '<Process><Applications><Application External_ID="E" Status="Queued"/></Applications></Process>',
    );
    assert.deepEqual(response.applications[0]?.status, { raw: 'Queued', known: false, status: 'Queued' });
    assert.equal(response.applications[0]?.succeeded, false);
  });
});
