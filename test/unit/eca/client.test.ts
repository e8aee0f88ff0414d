import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStatusReader } from '../../../activities/status.js';
import { createEcaClient, EcaLanguageCodeError, parseEnumerationsBody } from '../../../eca/web-client/index.js';
import type { EcaClient, EcaClientOptions } from '../../../eca/web-client/index.js';
import * as openpgp from 'openpgp';
import { generateKeyPair, loadPrivateKey, loadPublicKey, open, seal, toBase64 } from '../../../eca/crypto.js';
import type { EnvelopeKeys } from '../../../eca/crypto.js';
import {
  EcaCryptoError,
  EcaDeferredError,
  EcaHttpError,
  EcaNetworkError,
  EcaRequestError,
  EcaSchemaError,
  EcaTimeoutError,
} from '../../../eca/errors.js';
import { SSO_PAYLOAD_FIELDS } from '../../../eca/sso.js';
import { buildUpdateRequestXml } from '../../../eca/xml.js';
import { validateApplicationStructure } from '../../../simulator/formats/application-validation.js';
import { readArchive } from '../../../simulator/formats/archive.js';
import { buildCreateResponseXml, buildDocumentsReport } from '../../../simulator/formats/report-xml.js';
import { parseSubmitDocumentsXml, parseUpdateRequestXml } from '../../../simulator/formats/request-xml.js';
import { parseSsoPayload } from '../../../simulator/formats/sso-payload.js';
import { startServer } from './support.js';
import type { ScriptedServer } from './support.js';

const FIXTURE = new URL('../../fixtures/eca/application.xml', import.meta.url);
const CSID = 'CSID-TEST-1';
const PASSPHRASE = 'firm secret phrase';

function pdf(seed: number, size = 2048): Uint8Array {
  return new Uint8Array(size).map((_, index) => (index * seed + 3) % 256);
}

async function expectError<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
  check?: (error: E) => void,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    check?.(error);
    return error;
  }
  assert.fail(`expected ${type.name}`);
}

describe('eca/client: every operation against a local server', function () {
  let server: ScriptedServer;
  let client: EcaClient;
  let brokerage: EnvelopeKeys;
  let keys: { firm: { publicKey: string; privateKey: string }; brokerage: { publicKey: string; privateKey: string } };
  let applicationXml: string;
  const clock = new Date('2024-05-01T10:00:00Z');

  function makeClient(overrides: Partial<EcaClientOptions> = {}): EcaClient {
    return createEcaClient({
      baseUrl: server.url,
      preferenceUrl: `${server.url}/prefs`,
      csid: CSID,
      firmPrivateKey: keys.firm.privateKey,
      passphrase: PASSPHRASE,
      brokeragePublicKey: keys.brokerage.publicKey,
      timeoutMs: 2_000,
      retry: { limit: 2, delayMs: 5 },
      sso: { allowInsecureLoopback: true },
      now: () => clock,
      ...overrides,
    });
  }

  /** The brokerage side of the envelope: what the simulator does with a request payload. */
  async function openRequest(body: unknown): Promise<Uint8Array> {
    assert.ok(body && typeof body === 'object');
    const { CSID: csid, payload } = body as { CSID: string; payload: string };
    assert.equal(csid, CSID);
    return open(payload, brokerage);
  }

  /** The next create is answered as processed, its response file signed by a key that is not the brokerage's. */
  async function answerCreateSignedByImpostor(): Promise<void> {
    const impostor = await generateKeyPair({ name: 'Impostor', email: 'impostor@example.com' });
    const forger: EnvelopeKeys = {
      ownPrivateKey: await loadPrivateKey(impostor.privateKey),
      peerPublicKey: brokerage.peerPublicKey,
    };
    server.on('/ws/eca/create', async () => ({
      body: {
        isProcessed: true,
        name: 'DemoFirm_20240501_0001_0001.xml.report',
        fileData: { data: await seal(new TextEncoder().encode('<Process/>'), forger) },
      },
    }));
  }

  before(async function () {
    keys = {
      firm: await generateKeyPair({ name: 'Firm', email: 'firm@example.com', passphrase: PASSPHRASE }),
      brokerage: await generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.com' }),
    };
    brokerage = {
      ownPrivateKey: await loadPrivateKey(keys.brokerage.privateKey, undefined, 'brokeragePrivateKey'),
      peerPublicKey: await loadPublicKey(keys.firm.publicKey, 'firmPublicKey'),
      side: 'brokerage',
    };
    applicationXml = await readFile(FIXTURE, 'utf8');
  });

  beforeEach(async function () {
    server = await startServer();
    client = makeClient();
  });

  afterEach(async function () {
    await server.close();
  });

  describe('getPendingTasks', function () {
    it('sends the selection with CSID and a list of accounts, and normalises the odd variants', async function () {
      server.on('/ws/eca/getPendingTasks', {
        body: {
          timestamp: '2024-05-01 10:11:12',
          result: [
            {
              acctId: 'U1',
              description: 'New Account',
              status: 'N',
              isPendingTaskPresent: 'true',
              isError: 'false',
              pendingTasks: [
                {
                  formNumber: '3024',
                  formName: 'Agreement',
                  action: 'to sign',
                  isRequiredForTrading: 'true',
                  isOnlineTask: false,
                  isRequiredForApproval: true,
                  taskNumber: '17',
                  state: 'Rejected Document is expired',
                  futureField: { nested: 1 },
                },
                { formNumber: 8001, action: 'to fax', state: 'Escalated' },
                { formNumber: '5001', action: 'to complete' },
              ],
              newTopLevel: 'kept',
            },
            { acctId: 'U2', isError: true, Error: 'Account U2 is not associated with your account' },
            { accountId: 'U3', status: 'Z', isError: false, pendingTasks: null },
          ],
        },
      });
      const response = await client.getPendingTasks({ accountIds: 'U1', formNumber: '3024' });
      assert.deepEqual(server.requests[0]?.body, { CSID, accountIds: ['U1'], formNumber: '3024' });
      assert.match(server.requests[0]?.contentType ?? '', /^application\/json/);

      assert.equal(response.timestamp?.date?.toISOString(), '2024-05-01T10:11:12.000Z');
      const [u1, u2, u3] = response.accounts;
      assert.equal(u1?.accountId, 'U1');
      assert.equal(u1?.isError, false);
      assert.equal(u1?.isPendingTaskPresent, true);
      assert.deepEqual(u1?.status, { raw: 'N', known: true, code: 'N', meaning: 'New account, not yet open' });
      assert.deepEqual(u1?.extra, { newTopLevel: 'kept' });
      const [rejected, odd, plain] = u1?.pendingTasks ?? [];
      assert.equal(rejected?.isRequiredForTrading, true);
      assert.equal(rejected?.isOnlineTask, false);
      assert.equal(rejected?.taskNumber, 17);
      assert.deepEqual(rejected?.action, { raw: 'to sign', known: true, action: 'to sign' });
      assert.deepEqual(rejected?.state, {
        raw: 'Rejected Document is expired',
        known: true,
        state: 'Rejected',
        reason: 'Document is expired',
      });
      assert.deepEqual(rejected?.extra, { futureField: { nested: 1 } });
      assert.equal(odd?.formNumber, '8001');
      assert.deepEqual(odd?.action, { raw: 'to fax', known: false, action: 'to fax' });
      assert.deepEqual(odd?.state, { raw: 'Escalated', known: false, state: 'Escalated' });
      assert.equal(plain?.state, undefined);

      assert.deepEqual(
        { accountId: u2?.accountId, isError: u2?.isError, error: u2?.error },
        { accountId: 'U2', isError: true, error: 'Account U2 is not associated with your account' },
      );
      assert.equal(u3?.accountId, 'U3');
      assert.deepEqual(u3?.status, { raw: 'Z', known: false, code: 'Z' });
      assert.deepEqual(u3?.pendingTasks, []);
      assert.deepEqual((response.raw as { result: unknown[] }).result.length, 3);
    });

    it('selects all sub-accounts with CSID only, and by date range', async function () {
      server.on('/ws/eca/getPendingTasks', { body: { result: [] } });
      await client.getPendingTasks();
      await client.getPendingTasks({ startDate: '2024-01-01', endDate: '2024-01-31', CSID: 'OTHER' });
      assert.deepEqual(server.requests[0]?.body, { CSID });
      assert.deepEqual(server.requests[1]?.body, { CSID: 'OTHER', startDate: '2024-01-01', endDate: '2024-01-31' });
    });
  });

  describe('getRegistrationTasks', function () {
    it('normalises dates, the template spelling and keeps pulled documents', async function () {
      server.on('/ws/eca/getRegistrationTasks', {
        body: {
          timestamp: '2024-05-01 10:11:12',
          result: [
            {
              acctId: 'U1',
              status: 'O',
              description: 'Open',
              dateStarted: '2024-04-01',
              dateOpened: '2024-04-03 09:00:00.0',
              isRegistrationTasksPresent: 'true',
              isError: false,
              documents: [{ type: 'passport' }],
              registrationTasks: [
                {
                  formNumber: '3024',
                  action: 'to sign',
                  isRequiredForApproval: 'true',
                  isComplete: 'true',
                  dateComplete: '2024-04-02 08:30:00.5',
                },
                { formNumber: '4024', action: 'to send', isComplete: 'false', state: 'Pending' },
              ],
            },
          ],
        },
      });
      const response = await client.getRegistrationTasks({ accountIds: ['U1'], getDocs: 'T' });
      assert.deepEqual(server.requests[0]?.body, { CSID, accountIds: ['U1'], getDocs: 'T' });
      const [account] = response.accounts;
      assert.equal(account?.isRegistrationTaskPresent, true);
      assert.equal(account?.dateStarted?.date?.toISOString(), '2024-04-01T00:00:00.000Z');
      assert.equal(account?.dateOpened?.date?.toISOString(), '2024-04-03T09:00:00.000Z');
      assert.deepEqual(account?.extra, { documents: [{ type: 'passport' }] });
      const [done, pending] = account?.registrationTasks ?? [];
      assert.equal(done?.isComplete, true);
      assert.equal(done?.dateComplete?.date?.toISOString(), '2024-04-02T08:30:00.500Z');
      assert.equal(pending?.isComplete, false);
      assert.deepEqual(pending?.state, { raw: 'Pending', known: true, state: 'Pending' });
    });
  });

  describe('getAccountStatus', function () {
    it('reads the `status` list with application states and per-account errors', async function () {
      server.on('/ws/eca/getAccountStatus', {
        body: {
          timestamp: '2024-05-01 10:11:12',
          status: [
            {
              accountId: 'U1',
              isError: false,
              description: 'Pending',
              state: 'Under Review with IBKR-side staff',
              status: 'P',
            },
            { 'Account ID': 'U2', isError: 'false', state: 'Documents Required', status: 'N' },
            { accountId: 'U3', isError: 'true', error: 'Account U3 is not associated with your account' },
          ],
        },
      });
      const response = await client.getAccountStatus({ accountIds: ['U1', 'U2', 'U3'], status: 'P' });
      assert.deepEqual(server.requests[0]?.body, { CSID, accountIds: ['U1', 'U2', 'U3'], status: 'P' });
      const [u1, u2, u3] = response.accounts;
      assert.deepEqual(u1?.state, {
        raw: 'Under Review with IBKR-side staff',
        known: true,
        state: 'Under Review',
        reviewer: 'IBKR-side staff',
      });
      assert.equal(u2?.accountId, 'U2');
      assert.equal(u2?.state?.state, 'Documents Required');
      assert.equal(u3?.isError, true);
      assert.equal(u3?.error, 'Account U3 is not associated with your account');
    });
  });

  describe('convention 3: "an entry for a failing account carries isError = true and an error text; other accounts in the same response are not affected"', function () {
    it('keeps the other accounts of getAccountStatus and getPendingTasks when an error entry names no account', async function () {
      const failing = { isError: true, error: 'internal error while reading an account' };
      server.on('/ws/eca/getAccountStatus', {
        body: { status: [{ accountId: 'U1', isError: false, status: 'N', state: 'Documents Required' }, failing] },
      });
      server.on('/ws/eca/getPendingTasks', {
        body: { result: [failing, { acctId: 'U1', isError: false, status: 'N', pendingTasks: [] }] },
      });
      const statuses = await client.getAccountStatus({ accountIds: ['U1', 'U2'] });
      assert.deepEqual(
        statuses.accounts.map((entry) => [entry.accountId, entry.isError, entry.error]),
        [
          ['U1', false, undefined],
          ['', true, 'internal error while reading an account'],
        ],
      );
      const tasks = await client.getPendingTasks({ accountIds: ['U1', 'U2'] });
      assert.deepEqual(
        tasks.accounts.map((entry) => [entry.accountId, entry.isError]),
        [
          ['', true],
          ['U1', false],
        ],
      );
      // The merged status read answers U1 and fails U2 alone (it has no entry of its own).
      const reader = createStatusReader(client, { windowMs: 5 });
      const [u1, u2] = await Promise.allSettled([reader.read(CSID, 'U1'), reader.read(CSID, 'U2')]);
      assert.equal(u1.status === 'fulfilled' && u1.value.status, 'N');
      assert.equal(u2.status, 'rejected');
    });

    it('fails the merged read of an account whose getPendingTasks entry is an error (its tasks are unknown, not none)', async function () {
      server.on('/ws/eca/getAccountStatus', {
        body: {
          status: [
            { accountId: 'U1', isError: false, status: 'P', state: 'Documents Required' },
            { accountId: 'U2', isError: false, status: 'P', state: 'Documents Required' },
          ],
        },
      });
      server.on('/ws/eca/getPendingTasks', {
        body: {
          result: [
            { acctId: 'U1', isError: true, error: 'tasks of U1 could not be read' },
            {
              acctId: 'U2',
              isError: false,
              status: 'P',
              pendingTasks: [{ formNumber: '8001', formName: 'Proof of Identity', action: 'to send' }],
            },
          ],
        },
      });
      const reader = createStatusReader(client, { windowMs: 5 });
      const [u1, u2] = await Promise.allSettled([reader.read(CSID, 'U1'), reader.read(CSID, 'U2')]);
      assert.equal(u1.status, 'rejected', 'an account whose tasks failed is not read as having no tasks');
      assert.match(u1.status === 'rejected' ? String(u1.reason) : '', /tasks of U1 could not be read/);
      assert.deepEqual(u2.status === 'fulfilled' && u2.value.tasks.map((task) => task.formNumber), ['8001']);
    });

    it('still refuses an ordinary entry without an account id (a malformed answer)', async function () {
      server.on('/ws/eca/getAccountStatus', { body: { status: [{ isError: false, status: 'N' }] } });
      await assert.rejects(client.getAccountStatus({ accountIds: ['U1'] }), /account id/);
    });
  });

  describe('getEnumerations', function () {
    it('reads the CSV from a CSV body, a csv field, base64 fileData or JSON rows', async function () {
      const csv = 'broker_id,broker_name\n0005,Alpha\n0161,"Beta, Inc"\n';
      const expected = [
        { broker_id: '0005', broker_name: 'Alpha' },
        { broker_id: '0161', broker_name: 'Beta, Inc' },
      ];
      const replies = [
        { body: csv, contentType: 'text/csv' },
        { body: { timestamp: '2024-05-01 10:00:00', csv } },
        { body: { fileData: { name: 'ACATS.csv', data: Buffer.from(csv).toString('base64') } } },
        { body: { result: expected } },
      ];
      for (const reply of replies) {
        server.on('/ws/eca/getEnumerations', reply);
        const response = await client.getEnumerations({ type: 'ACATS' });
        assert.deepEqual(response.rows, expected);
        assert.equal(response.type, 'ACATS');
      }
      assert.deepEqual(server.requests[0]?.body, { CSID, type: 'ACATS' });
    });

    // Spec, Authentication 2: "Responses that carry files are encrypted XML in base64 that the caller decrypts".
    it('opens an encrypted CSV (binary, armored, wrapped, signed or not) and never reads ciphertext as rows', async function () {
      const csv = 'broker_id,broker_name\n0005,Alpha\n';
      const expected = [{ broker_id: '0005', broker_name: 'Alpha' }];
      const bytes = new TextEncoder().encode(csv);
      const signed = await seal(bytes, brokerage);
      const unsigned = toBase64(
        (await openpgp.encrypt({
          message: await openpgp.createMessage({ binary: bytes }),
          encryptionKeys: brokerage.peerPublicKey,
          format: 'binary',
        })) as Uint8Array,
      );
      const armored = (await openpgp.encrypt({
        message: await openpgp.createMessage({ binary: bytes }),
        encryptionKeys: brokerage.peerPublicKey,
        signingKeys: brokerage.ownPrivateKey,
      })) as string;
      const wrapped = signed.replace(/.{76}/g, '$&\n');
      for (const data of [signed, unsigned, armored, wrapped]) {
        server.on('/ws/eca/getEnumerations', { body: { fileData: { name: 'ACATS.csv', data } } });
        assert.deepEqual((await client.getEnumerations({ type: 'ACATS' })).rows, expected);
      }
      // Text whose first byte is that of a session-key packet (0xC3, as in É) is still text.
      const accented = 'Écolé,b\n1,2\n';
      server.on('/ws/eca/getEnumerations', {
        body: { fileData: { name: 'ACATS.csv', data: Buffer.from(accented).toString('base64') } },
      });
      assert.deepEqual((await client.getEnumerations({ type: 'ACATS' })).rows, [{ Écolé: '1', b: '2' }]);

      const impostor = await generateKeyPair({ name: 'Impostor', email: 'impostor@example.com' });
      const forged = await seal(bytes, {
        ownPrivateKey: await loadPrivateKey(impostor.privateKey),
        peerPublicKey: brokerage.peerPublicKey,
      });
      server.on('/ws/eca/getEnumerations', { body: { fileData: { name: 'ACATS.csv', data: forged } } });
      await expectError(client.getEnumerations({ type: 'ACATS' }), EcaCryptoError, (error) =>
        assert.equal(error.key, 'signature'),
      );
      await expectError(
        parseEnumerationsBody('ACATS', JSON.stringify({ fileData: { data: signed } })),
        EcaSchemaError,
        (error) => assert.equal(error.path, 'fileData.data'),
      );
    });

    it('sends currency for FIN_INFO_RANGES and formNumber for EDD_AVT, and enforces both rules', async function () {
      server.on('/ws/eca/getEnumerations', { body: { csv: 'id\n1\n' } });
      await client.getEnumerations({ type: 'FIN_INFO_RANGES', currency: 'EUR' });
      await client.getEnumerations({ type: 'EDD_AVT', formNumber: '9001' });
      await client.getEnumerations({ type: 'BUSINESS_OCCUPATION' });
      assert.deepEqual(
        server.requests.map((request) => request.body),
        [
          { CSID, type: 'FIN_INFO_RANGES', currency: 'EUR' },
          { CSID, type: 'EDD_AVT', formNumber: '9001' },
          { CSID, type: 'BUSINESS_OCCUPATION' },
        ],
      );
      const rule = (request: Parameters<EcaClient['getEnumerations']>[0], parameter: string) =>
        expectError(client.getEnumerations(request), EcaRequestError, (error) =>
          assert.equal(error.parameter, parameter),
        );
      await rule({ type: 'FIN_INFO_RANGES' }, 'currency');
      await rule({ type: 'FIN_INFO_RANGES', currency: 'eur' }, 'currency');
      await rule({ type: 'ACATS', currency: 'USD' }, 'currency');
      await rule({ type: 'EDD_AVT' }, 'formNumber');
      await rule({ type: 'ACATS', formNumber: '1' }, 'formNumber');
      await rule({ type: 'NOPE' as never }, 'type');
      assert.equal(server.requests.length, 3, 'rule violations never reach the server');
    });
  });

  describe('getAmRequestStatus', function () {
    it('groups requests by type and types their statuses', async function () {
      server.on('/ws/eca/getAmRequestStatus', {
        body: {
          timestamp: '2024-05-01 10:11:12',
          result: [
            {
              acctId: 'U1',
              request_id: '123',
              Status: 'PENDING',
              timestamp: '2024-05-01 09:00:00',
              isError: 'false',
              AbandonAccount: {
                data: [{ RequestDetail: 'ABANDON', status: 'PROCESSED' }],
                files: ['Firm_20240501_0001_0001.xml'],
              },
              UpdateTaxForm: { data: [{ RequestDetail: 'W8', status: 'QUEUED', note: 'x' }], files: [] },
            },
            { acctId: 'U9', isError: true, Error: 'not associated' },
          ],
        },
      });
      const response = await client.getAmRequestStatus({ request_id: '123' });
      assert.deepEqual(server.requests[0]?.body, { CSID, request_id: '123' });
      const [entry, failing] = response.requests;
      assert.equal(entry?.accountId, 'U1');
      assert.equal(entry?.requestId, '123');
      assert.deepEqual(entry?.status, { raw: 'PENDING', known: true, status: 'PENDING' });
      assert.deepEqual(
        entry?.requests.map((group) => [group.type, group.data.map((item) => item.status?.status), group.files]),
        [
          ['AbandonAccount', ['PROCESSED'], ['Firm_20240501_0001_0001.xml']],
          ['UpdateTaxForm', ['QUEUED'], []],
        ],
      );
      assert.equal(entry?.requests[1]?.data[0]?.status?.known, false);
      assert.deepEqual(entry?.requests[1]?.data[0]?.extra, { note: 'x' });
      assert.equal(failing?.error, 'not associated');
    });

    it('allows one request_id per call only', async function () {
      for (const request_id of [['1', '2'] as never, '1,2', '1 2', '']) {
        await expectError(client.getAmRequestStatus({ request_id }), EcaRequestError, (error) =>
          assert.equal(error.parameter, 'request_id'),
        );
      }
      assert.equal(server.requests.length, 0);
    });
  });

  describe('getResponseFile, getBatchDetails, getFileDetails', function () {
    it('getResponseFile normalises Clearing Status and the not-authorised entry', async function () {
      server.on('/ws/eca/getResponseFile', {
        body: {
          result: [
            {
              isProcessed: 'true',
              timestamp: '2024-05-01 10:11:12',
              name: 'Firm_20240501_0001_0001.xml.report',
              isError: false,
              'Clearing Status': 'O',
            },
            { name: 'EXT-9', isError: 'true', error: 'You are not authorized to view the response file for EXT-9' },
          ],
        },
      });
      const response = await client.getResponseFile({ externalId: 'EXT-1' });
      assert.deepEqual(server.requests[0]?.body, { CSID, externalId: 'EXT-1' });
      const [file, denied] = response.files;
      assert.equal(file?.isProcessed, true);
      assert.equal(file?.clearingStatus?.code, 'O');
      assert.equal(file?.name, 'Firm_20240501_0001_0001.xml.report');
      assert.equal(denied?.isError, true);
      assert.match(denied?.error ?? '', /not authorized/);
      await expectError(client.getResponseFile({ externalId: ' ' }), EcaRequestError);
    });

    it('getBatchDetails renames the spaced fields and parses Date Begun', async function () {
      server.on('/ws/eca/getBatchDetails', {
        body: {
          result: [
            { 'Account ID': 'U1', BatchID: 987654, 'Date Begun': '2024-04-30 16:00:01', 'Clearing Status': 'P' },
            { 'Account ID': 'U2', isError: true, error: 'Account U2 is not associated with your account' },
          ],
        },
      });
      const response = await client.getBatchDetails({ accountIds: ['U1', 'U2'] });
      assert.deepEqual(server.requests[0]?.body, { CSID, accountIds: ['U1', 'U2'] });
      const [u1, u2] = response.accounts;
      assert.deepEqual(
        { accountId: u1?.accountId, batchId: u1?.batchId, isError: u1?.isError, code: u1?.clearingStatus?.code },
        { accountId: 'U1', batchId: '987654', isError: false, code: 'P' },
      );
      assert.equal(u1?.dateBegun?.date?.toISOString(), '2024-04-30T16:00:01.000Z');
      assert.deepEqual(u1?.extra, {});
      assert.equal(u2?.error, 'Account U2 is not associated with your account');
    });

    it('getFileDetails renames the file-name fields', async function () {
      server.on('/ws/eca/getFileDetails', {
        body: {
          result: [
            {
              'Request File Name': 'Firm_2024-05-01_0001_0001.xml.imported',
              'Account ID': 'U1',
              'Response File Name': 'Firm_20240501_0001_0001.xml.report',
            },
          ],
        },
      });
      const response = await client.getFileDetails({ accountIds: 'U1' });
      assert.deepEqual(response.accounts[0], {
        accountId: 'U1',
        isError: false,
        requestFileName: 'Firm_2024-05-01_0001_0001.xml.imported',
        responseFileName: 'Firm_20240501_0001_0001.xml.report',
        extra: {},
      });
    });

    it('require accountIds', async function () {
      await expectError(client.getBatchDetails({} as never), EcaRequestError, (error) =>
        assert.equal(error.parameter, 'accountIds'),
      );
      await expectError(client.getFileDetails({ accountIds: [] }), EcaRequestError, (error) =>
        assert.equal(error.parameter, 'accountIds'),
      );
      assert.equal(server.requests.length, 0);
    });
  });

  describe('submitDocuments', function () {
    it('sends a sealed archive whose XML quotes the PDFs digests, and opens the report', async function () {
      const files = [
        { fileName: 'Form3024.pdf', data: pdf(3) },
        { fileName: 'Form4024.pdf', data: pdf(5) },
      ];
      server.on('/ws/eca/submitDocuments', async (body) => {
        const archive = readArchive(await openRequest(body));
        const request = parseSubmitDocumentsXml(archive.xml?.content ?? '');
        const documents = request.documents.flatMap((document) =>
          document.files.map((file) => {
            const stored = archive.files.get(file.fileName);
            assert.ok(stored, `${file.fileName} is in the archive`);
            const actual = createHash('sha1').update(stored).digest('hex');
            assert.equal(file.length, stored.byteLength);
            // The brokerage's archived original of the second form differs.
            const archived = document.formNumber === '4024' ? 'f'.repeat(40) : actual;
            return archived === file.sha1
              ? { formNumber: document.formNumber, fileName: file.fileName }
              : {
                  formNumber: document.formNumber,
                  fileName: file.fileName,
                  checksumMismatch: { stored: archived, received: file.sha1 },
                };
          }),
        );
        const report = buildDocumentsReport({ version: '15-Mar-2021', client: 'Firm', documents });
        return {
          body: {
            timestamp: '2024-05-01 10:11:12',
            isProcessed: 'true',
            fileData: {
              name: 'Firm_20240501_0001_0001.xml.report',
              data: await seal(new TextEncoder().encode(report), brokerage),
            },
          },
        };
      });
      const response = await client.submitDocuments({
        documents: [
          { formNumber: '3024', execTs: '20240501090000', execLoginTs: '20240501085500', files: [files[0]!] },
          {
            formNumber: '4024',
            execTs: new Date('2024-05-01T09:01:00Z'),
            execLoginTs: '20240501085500',
            files: [files[1]!],
          },
        ],
      });
      assert.equal(response.isProcessed, true);
      assert.equal(response.fileData?.name, 'Firm_20240501_0001_0001.xml.report');
      const [accepted, mismatch] = response.fileData?.report.documents ?? [];
      assert.equal(accepted?.accepted, true);
      assert.equal(mismatch?.accepted, false);
      const sentSha = createHash('sha1').update(files[1]!.data).digest('hex');
      assert.deepEqual(mismatch?.checksumMismatch, { stored: 'f'.repeat(40), received: sentSha });
      assert.deepEqual(response.sent[1], { formNumber: '4024', fileName: 'Form4024.pdf', sha1: sentSha, length: 2048 });
      const raw = JSON.stringify(response.raw);
      assert.doesNotMatch(raw, /Accepted/, 'the raw body holds the report encrypted only');
    });

    // Spec, Authentication 2: "Responses that carry files are encrypted XML in base64 that the caller decrypts":
    // encrypted, never said to be signed. A processed submission's report must not be lost for want of a signature.
    it('reads a report that is encrypted and not signed, in the calling thread and in crypto threads', async function () {
      const report = buildDocumentsReport({
        version: '15-Mar-2021',
        client: 'Firm',
        documents: [{ formNumber: '3024', fileName: 'Form3024.pdf' }],
      });
      const unsigned = toBase64(
        (await openpgp.encrypt({
          message: await openpgp.createMessage({ binary: new TextEncoder().encode(report) }),
          encryptionKeys: brokerage.peerPublicKey,
          format: 'binary',
        })) as Uint8Array,
      );
      server.on('/ws/eca/submitDocuments', {
        body: { isProcessed: true, fileData: { name: 'Firm_20240501_0001_0001.xml.report', data: unsigned } },
      });
      const documents = [
        {
          formNumber: '3024',
          execTs: '20240501090000',
          execLoginTs: '20240501085500',
          files: [{ fileName: 'Form3024.pdf', data: pdf(3) }],
        },
      ];
      for (const each of [client, makeClient({ cryptoThreads: 1 })]) {
        const response = await each.submitDocuments({ documents });
        assert.equal(response.isProcessed, true);
        assert.equal(response.fileData?.report.documents[0]?.accepted, true);
      }
    });

    it('gives isProcessed false without file data, and is never retried', async function () {
      server.on('/ws/eca/submitDocuments', { body: { isProcessed: false, timestamp: '2024-05-01 10:00:00' } });
      const documents = [
        {
          formNumber: '1',
          execTs: '20240501090000',
          execLoginTs: '20240501090000',
          files: [{ fileName: 'a.pdf', data: pdf(1) }],
        },
      ];
      const response = await client.submitDocuments({ documents });
      assert.equal(response.isProcessed, false);
      assert.equal(response.fileData, undefined);

      server.on('/ws/eca/submitDocuments', { status: 503, body: { error: 'down' } });
      await expectError(client.submitDocuments({ documents }), EcaHttpError, (error) =>
        assert.equal(error.status, 503),
      );
      assert.equal(server.requests.length, 2, 'one call each, no retry');
    });
  });

  describe('validateXML', function () {
    it('sends the application in a sealed archive and returns the errors as texts', async function () {
      server.on('/ws/eca/validateXML', async (body) => {
        const archive = readArchive(await openRequest(body));
        assert.equal(archive.xml?.fileName, 'application.xml');
        assert.ok(archive.files.has('W9.pdf'));
        const errors = validateApplicationStructure(archive.xml?.content ?? '');
        return {
          body: {
            isValid: errors.length === 0 ? 'true' : 'false',
            batchId: 4711,
            timestamp: '2024-05-01 10:00:00',
            errors: errors.map((error) => ({ error })),
          },
        };
      });
      const valid = await client.validateXML({ applicationXml, attachments: [{ fileName: 'W9.pdf', data: pdf(9) }] });
      assert.deepEqual(
        { isValid: valid.isValid, batchId: valid.batchId, errors: valid.errors },
        { isValid: true, batchId: '4711', errors: [] },
      );
      const invalid = await client.validateXML({
        applicationXml: applicationXml.replace(' first="Jane"', ''),
        attachments: [{ fileName: 'W9.pdf', data: pdf(9) }],
      });
      assert.equal(invalid.isValid, false);
      assert.equal(invalid.errors.length, 1);
      assert.match(invalid.errors[0] ?? '', /missing first name/);
    });

    it('refuses XML that is not well-formed before sending', async function () {
      await expectError(client.validateXML({ applicationXml: '<Applications>' }), EcaRequestError, (error) =>
        assert.equal(error.parameter, 'applicationXml'),
      );
      assert.equal(server.requests.length, 0);
    });
  });

  describe('create', function () {
    it('opens the response file: user name, account and a temporary password kept secret', async function () {
      server.on('/ws/eca/create', async (body) => {
        const archive = readArchive(await openRequest(body));
        assert.equal(archive.xml?.content, applicationXml);
        const xml = buildCreateResponseXml({
          applications: [
            {
              externalId: 'EXT-1',
              status: 'Success',
              accounts: [{ accountId: 'U7654321', status: 'N' }],
              users: [{ userName: 'jdoexa321', userId: '7654321', temporaryPassword: 'Temp#2024' }],
            },
          ],
        });
        return {
          body: {
            timestamp: '2024-05-01 10:00:00',
            isProcessed: true,
            batchId: 555,
            name: 'Firm_20240501_0001_0001.xml.report',
            fileData: { data: await seal(new TextEncoder().encode(xml), brokerage) },
          },
        };
      });
      const response = await client.create({ applicationXml });
      assert.equal(response.isProcessed, true);
      assert.equal(response.batchId, '555');
      assert.equal(response.name, 'Firm_20240501_0001_0001.xml.report');
      const [application] = response.response?.applications ?? [];
      assert.equal(application?.externalId, 'EXT-1');
      assert.equal(application?.accountId, 'U7654321');
      assert.equal(application?.userName, 'jdoexa321');
      assert.equal(application?.temporaryPassword?.reveal(), 'Temp#2024');
      assert.doesNotMatch(JSON.stringify(response), /Temp#2024/);
    });

    it('returns isProcessed false as is, and is never retried on 500', async function () {
      server.on('/ws/eca/create', { body: { isProcessed: 'false', timestamp: '2024-05-01 10:00:00' } });
      const response = await client.create({ applicationXml });
      assert.equal(response.isProcessed, false);
      assert.equal(response.response, undefined);
      server.on('/ws/eca/create', { status: 500, body: 'Internal error' });
      await expectError(client.create({ applicationXml }), EcaHttpError);
      assert.equal(server.requests.length, 2);
    });

    it('names the key when the response file was not signed by the brokerage, and keeps the processed answer', async function () {
      await answerCreateSignedByImpostor();
      // The call was processed (an account may exist): the answer is kept, the unverified file is not read.
      const response = await client.create({ applicationXml });
      assert.equal(response.isProcessed, true);
      assert.equal(response.name, 'DemoFirm_20240501_0001_0001.xml.report');
      assert.equal(response.responseXml, undefined, 'a file with a foreign signature is never read');
      assert.equal(response.response, undefined);
      assert.match(response.responseProblem ?? '', /^signature: /);
    });
  });

  describe('cryptoThreads: OpenPGP in worker threads', function () {
    it('seals requests and opens response files in threads as in the calling thread', async function () {
      const threaded = makeClient({ cryptoThreads: 2 });
      server.on('/ws/eca/create', async (body) => {
        const archive = readArchive(await openRequest(body));
        assert.equal(archive.xml?.content, applicationXml, 'the brokerage opens what a thread sealed');
        const xml = buildCreateResponseXml({
          applications: [
            { externalId: 'EXT-1', status: 'Success', accounts: [{ accountId: 'U1234567', status: 'N' }] },
          ],
        });
        return {
          body: {
            isProcessed: true,
            name: 'Firm_20240501_0001_0002.xml.report',
            fileData: { data: await seal(new TextEncoder().encode(xml), brokerage) },
          },
        };
      });
      const responses = await Promise.all([1, 2, 3].map(() => threaded.create({ applicationXml })));
      for (const response of responses) assert.equal(response.response?.applications[0]?.accountId, 'U1234567');
    });

    it('raises the same EcaCryptoError, naming the key, with a wrong passphrase or a forged answer', async function () {
      const locked = makeClient({ cryptoThreads: 1, passphrase: 'not the phrase' });
      await expectError(locked.validateXML({ applicationXml }), EcaCryptoError, (error) => {
        assert.equal(error.key, 'passphrase');
        assert.equal(error.stage, 'seal', 'nothing was sent');
      });
      assert.equal(server.requests.length, 0);

      await answerCreateSignedByImpostor();
      const response = await makeClient({ cryptoThreads: 1 }).create({ applicationXml });
      assert.match(response.responseProblem ?? '', /^signature: /);
    });
  });

  describe('ssoCreate', function () {
    it('seals the user name and one IP, and validates the signed URL with a 60 s expiry', async function () {
      let portalUrl = '';
      server.on('/ws/sso/create', async (body) => {
        const json = new TextDecoder().decode(await openRequest(body));
        assert.deepEqual(JSON.parse(json), {
          [SSO_PAYLOAD_FIELDS.userName]: 'jdoexa321',
          [SSO_PAYLOAD_FIELDS.ip]: '2001:db8::7',
        });
        assert.deepEqual(parseSsoPayload(json), { userName: 'jdoexa321', ip: '2001:db8::7' });
        portalUrl = `${server.url}/portal/start?SID=sess-1`;
        return { body: { RESULT: 'true', SUCCESS: { SIGNED_URL: Buffer.from(portalUrl).toString('base64') } } };
      });
      const response = await client.ssoCreate({ userName: 'jdoexa321', ip: '2001:db8::7' });
      assert.equal(response.result, true);
      assert.equal(response.signedUrl?.url, portalUrl);
      assert.equal(response.signedUrl?.sid, 'sess-1');
      assert.equal(response.signedUrl?.expiresAt.toISOString(), '2024-05-01T10:01:00.000Z');
    });

    it('opens an OpenPGP-sealed SIGNED_URL too', async function () {
      server.on('/ws/sso/create', async () => ({
        body: {
          RESULT: true,
          SUCCESS: { SIGNED_URL: await seal(new TextEncoder().encode(`${server.url}/portal?SID=s2`), brokerage) },
        },
      }));
      const response = await client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' });
      assert.equal(response.signedUrl?.sid, 's2');
    });

    it('returns RESULT false with the ERROR text, and refuses a URL on a foreign host', async function () {
      server.on('/ws/sso/create', { body: { RESULT: 'false', ERROR: 'Unable to decrypt payload' } });
      const failed = await client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' });
      assert.deepEqual(
        { result: failed.result, error: failed.error },
        { result: false, error: 'Unable to decrypt payload' },
      );
      server.on('/ws/sso/create', {
        body: { RESULT: true, SUCCESS: { SIGNED_URL: Buffer.from('https://evil.example.net/x').toString('base64') } },
      });
      await expectError(client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' }), EcaSchemaError, (error) =>
        assert.equal(error.path, 'SUCCESS.SIGNED_URL'),
      );
    });

    // Spec, resources: "Fields: `SIGNED_URL` (base64 string of the session URL), `RESULT` (boolean), `ERROR` (string)."
    // The endpoint section nests it ("`SUCCESS` (object with `SIGNED_URL` ...)"): both shapes are read.
    it('reads the flat SIGNED_URL of the resources section ("Fields: `SIGNED_URL` ..., `RESULT` ..., `ERROR`")', async function () {
      const portalUrl = `${server.url}/portal/start?SID=flat-1`;
      server.on('/ws/sso/create', {
        body: { RESULT: true, SIGNED_URL: Buffer.from(portalUrl).toString('base64') },
      });
      const response = await client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' });
      assert.equal(response.result, true);
      assert.equal(response.signedUrl?.url, portalUrl);
      assert.equal(response.signedUrl?.sid, 'flat-1');
      assert.equal(response.signedUrl?.expiresAt.toISOString(), '2024-05-01T10:01:00.000Z');

      server.on('/ws/sso/create', async () => ({
        body: {
          RESULT: 'true',
          SIGNED_URL: await seal(new TextEncoder().encode(`${server.url}/portal?SID=flat-2`), brokerage),
        },
      }));
      assert.equal((await client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' })).signedUrl?.sid, 'flat-2');

      server.on('/ws/sso/create', {
        body: { RESULT: true, SIGNED_URL: Buffer.from('https://evil.example.net/x').toString('base64') },
      });
      await expectError(client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' }), EcaSchemaError, (error) =>
        assert.equal(error.path, 'SIGNED_URL'),
      );
      server.on('/ws/sso/create', { body: { RESULT: true } });
      await expectError(client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' }), EcaSchemaError, (error) =>
        assert.match(error.message, /missing although RESULT is true/),
      );
      server.on('/ws/sso/create', { body: { RESULT: true, SIGNED_URL: 42 } });
      await expectError(client.ssoCreate({ userName: 'u1', ip: '203.0.113.9' }), EcaSchemaError, (error) =>
        assert.equal(error.path, 'SIGNED_URL'),
      );
    });

    // Spec, sso/create rule 3: "The URL is valid 60 seconds". The URL is issued after the request is sent, so the
    // expiry counts from the moment of sending: a slow answer must not move expiresAt later.
    it('counts the 60 s ("The URL is valid 60 seconds") from the moment the request is sent, not from the answer', async function () {
      let clockMs = Date.parse('2024-05-01T10:00:00Z');
      const slowClient = makeClient({ now: () => new Date(clockMs) });
      server.on('/ws/sso/create', () => {
        // The answer arrives 7 s after the request left.
        clockMs += 7_000;
        return {
          body: { RESULT: true, SUCCESS: { SIGNED_URL: Buffer.from(`${server.url}/p?SID=s`).toString('base64') } },
        };
      });
      const response = await slowClient.ssoCreate({ userName: 'u1', ip: '203.0.113.9' });
      assert.equal(response.signedUrl?.issuedAt.toISOString(), '2024-05-01T10:00:00.000Z');
      assert.equal(response.signedUrl?.expiresAt.toISOString(), '2024-05-01T10:01:00.000Z');
    });

    it('requires exactly one valid IP before sending', async function () {
      for (const ip of [['203.0.113.9', '203.0.113.10'], '203.0.113.9, 203.0.113.10', 'localhost', '']) {
        await expectError(client.ssoCreate({ userName: 'u1', ip }), EcaRequestError, (error) =>
          assert.equal(error.parameter, 'ip'),
        );
      }
      assert.equal(server.requests.length, 0);
    });
  });

  describe('update', function () {
    it('sends the request XML with attachments and opens the response file', async function () {
      server.on('/ws/eca/update', async (body) => {
        const archive = readArchive(await openRequest(body));
        const [request] = parseUpdateRequestXml(archive.xml?.content ?? '');
        assert.equal(request?.functionName, 'AbandonAccount');
        assert.equal(request?.accountId, 'U1');
        const xml = '<Result request_id="77"/>';
        return {
          body: {
            timestamp: '2024-05-01 10:00:00',
            fileData: {
              name: 'Firm_20240501_0001_0002.xml',
              data: await seal(new TextEncoder().encode(xml), brokerage),
            },
          },
        };
      });
      const response = await client.update({
        xml: buildUpdateRequestXml({ accountId: 'U1', functionName: 'AbandonAccount' }),
      });
      assert.deepEqual(response.fileData, { name: 'Firm_20240501_0001_0002.xml', xml: '<Result request_id="77"/>' });
      assert.equal(response.timestamp?.raw, '2024-05-01 10:00:00');
    });
  });

  describe('preferenceSet', function () {
    it('posts to the preference address with the spec field names and defaults', async function () {
      server.on('/prefs/preference/set', { body: { status: 'OK' } });
      const response = await client.preferenceSet({
        customerIdentity: { userName: 'jdoexa321' },
        preferences: { LANGUAGE: { LANG1: 'en', LANG2: 'zh' } },
      });
      assert.deepEqual(server.requests[0]?.body, {
        customerIdentity: { userName: 'jdoexa321' },
        preferences: { LANGUAGE: { LANG1: 'en', LANG2: 'zh' } },
        updateMode: 'INDIVIDUAL',
        modifiedBy: 'ECA',
        srcApp: 'ECA',
      });
      assert.deepEqual({ status: response.status, body: response.body }, { status: 200, body: { status: 'OK' } });
      await expectError(
        client.preferenceSet({ customerIdentity: { userName: 'u' }, preferences: { LANGUAGE: { LANG1: 'English' } } }),
        EcaRequestError,
        (error) => assert.equal(error.parameter, 'preferences.LANGUAGE.LANG1'),
      );
    });

    // Spec, preference/set: "Languages are given as short lower-case codes."
    it('refuses codes that are not short lower-case codes before sending ("Languages are given as short lower-case codes")', async function () {
      server.on('/prefs/preference/set', { body: { status: 'OK' } });
      const cases: Array<[{ LANG1: string; LANG2?: string }, string, string]> = [
        [{ LANG1: 'en-US' }, 'preferences.LANGUAGE.LANG1', 'en-US'],
        [{ LANG1: 'en', LANG2: 'zh-Hans' }, 'preferences.LANGUAGE.LANG2', 'zh-Hans'],
        [{ LANG1: 'EN' }, 'preferences.LANGUAGE.LANG1', 'EN'],
        [{ LANG1: 'zh_CN' }, 'preferences.LANGUAGE.LANG1', 'zh_CN'],
        [{ LANG1: 'de', LANG2: '' }, 'preferences.LANGUAGE.LANG2', ''],
      ];
      for (const [LANGUAGE, parameter, value] of cases) {
        await expectError(
          client.preferenceSet({ customerIdentity: { userName: 'u' }, preferences: { LANGUAGE } }),
          EcaLanguageCodeError,
          (error) => {
            assert.ok(error instanceof EcaRequestError);
            assert.equal(error.parameter, parameter);
            assert.equal(error.value, value);
            assert.ok(error.message.includes(JSON.stringify(value)), error.message);
          },
        );
      }
      assert.equal(server.requests.length, 0);
      await client.preferenceSet({ customerIdentity: { userName: 'u' }, preferences: { LANGUAGE: { LANG1: 'fra' } } });
      assert.equal(server.requests.length, 1);
    });
  });

  describe('request rules', function () {
    const cases: Array<[string, (client: EcaClient) => Promise<unknown>, string]> = [
      ['startDate without endDate', (c) => c.getPendingTasks({ startDate: '2024-01-01' }), 'endDate'],
      [
        'startDate not yyyy-mm-dd',
        (c) => c.getPendingTasks({ startDate: '01/01/2024', endDate: '2024-01-31' }),
        'startDate',
      ],
      [
        'endDate not a real date',
        (c) => c.getAccountStatus({ startDate: '2024-01-01', endDate: '2024-02-30' }),
        'endDate',
      ],
      [
        'endDate before startDate',
        (c) => c.getAccountStatus({ startDate: '2024-02-01', endDate: '2024-01-01' }),
        'endDate',
      ],
      ['formNumber not numeric', (c) => c.getPendingTasks({ formNumber: 'W8' }), 'formNumber'],
      ['empty account list', (c) => c.getRegistrationTasks({ accountIds: [] }), 'accountIds'],
      ['bad account id', (c) => c.getAccountStatus({ accountIds: ['U1', 'U 2'] }), 'accountIds[1]'],
      ['getDocs not T/F', (c) => c.getRegistrationTasks({ getDocs: 'Y' as never }), 'getDocs'],
      ['unknown status filter', (c) => c.getAccountStatus({ status: 'X' as never }), 'status'],
      ['missing CSID', (c) => c.getPendingTasks({ CSID: '' }), 'CSID'],
    ];
    for (const [name, call, parameter] of cases) {
      it(`refuses ${name} before sending`, async function () {
        await expectError(call(client), EcaRequestError, (error) => assert.equal(error.parameter, parameter));
        assert.equal(server.requests.length, 0);
      });
    }
  });

  describe('pacing (EcaClientOptions.pace)', function () {
    it('paces every request, query retries included, and sends nothing when the pacing defers or fails', async function () {
      const paced: string[] = [];
      server.on('/ws/eca/getAccountStatus', () =>
        paced.length === 1 ? { status: 503, body: 'busy' } : { body: { status: [] } },
      );
      await makeClient({ pace: (operation) => Promise.resolve(void paced.push(operation)) }).getAccountStatus();
      assert.deepEqual(paced, ['getAccountStatus', 'getAccountStatus'], 'the retry was paced as well');
      const requests = server.requests.length;

      const put = await expectError(
        makeClient({ pace: (operation) => Promise.reject(new EcaDeferredError(operation, 1234, 'taken')) }).create({
          applicationXml,
        }),
        EcaDeferredError,
      );
      assert.equal(put.retryAfterMs, 1234);
      // A failure of the pacing itself (its database, say) is a deferral too: never a network error.
      const failed = await expectError(
        makeClient({ pace: () => Promise.reject(new Error('database down')) }).getAccountStatus(),
        EcaDeferredError,
      );
      assert.equal(failed.operation, 'getAccountStatus');
      // The call was cancelled while it waited for its slot.
      const controller = new AbortController();
      const late = await expectError(
        makeClient({
          signal: () => controller.signal,
          pace: () => Promise.resolve(controller.abort()),
        }).create({ applicationXml }),
        EcaDeferredError,
      );
      assert.match(late.message, /cancelled or timed out while it waited for its slot/);
      assert.equal(server.requests.length, requests, 'nothing was sent');
    });
  });

  describe('HTTP failures', function () {
    it('retries query operations on 5xx, then reports status and a redacted excerpt', async function () {
      server.on('/ws/eca/getAccountStatus', {
        status: 500,
        body: { error: 'boom', payload: 'U0VDUkVUU0VDUkVUU0VDUkVUU0VDUkVUU0VDUkVUU0VDUkVU', fileData: { data: 'x' } },
      });
      const error = await expectError(client.getAccountStatus(), EcaHttpError);
      assert.equal(error.status, 500);
      assert.match(error.bodyExcerpt, /boom/);
      assert.doesNotMatch(error.bodyExcerpt + error.message, /U0VDUkVU/);
      assert.equal(server.requests.length, 3, 'first call plus two retries');
    });

    it('recovers when a retry succeeds', async function () {
      let calls = 0;
      server.on('/ws/eca/getFileDetails', () =>
        ++calls === 1 ? { status: 503, body: 'busy' } : { body: { result: [] } },
      );
      const response = await client.getFileDetails({ accountIds: 'U1' });
      assert.deepEqual(response.accounts, []);
      assert.equal(calls, 2);
    });

    it('asks a query again when an attempt times out or the body is not JSON; a write never', async function () {
      const quick = makeClient({ timeoutMs: 200, retry: { limit: 2, delayMs: 5 } });
      let calls = 0;
      server.on('/ws/eca/getPendingTasks', () =>
        ++calls === 1 ? { delayMs: 1_000, body: { result: [] } } : { body: { result: [] } },
      );
      assert.deepEqual((await quick.getPendingTasks()).accounts, []);
      assert.equal(calls, 2, 'the held attempt, then one that answered');
      let statusCalls = 0;
      server.on('/ws/eca/getAccountStatus', () =>
        ++statusCalls === 1 ? { body: '{"status": [', contentType: 'application/json' } : { body: { status: [] } },
      );
      assert.deepEqual((await quick.getAccountStatus()).accounts, []);
      assert.equal(statusCalls, 2, 'the broken body, then one that parsed');
      server.on('/ws/eca/create', { body: '{"isProcessed": ', contentType: 'application/json' });
      await expectError(quick.create({ applicationXml }), EcaSchemaError);
      assert.equal(
        server.requests.filter((request) => request.path === '/ws/eca/create').length,
        1,
        'create sent once',
      );
    });

    it('times out with EcaTimeoutError', async function () {
      const impatient = makeClient({ timeoutMs: 100, retry: 0 });
      server.on('/ws/eca/getPendingTasks', { delayMs: 1_000, body: { result: [] } });
      await expectError(impatient.getPendingTasks(), EcaTimeoutError, (error) => assert.equal(error.timeoutMs, 100));
    });

    it('times out with EcaTimeoutError when the body stalls after the head, and reads an error answer within the time', async function () {
      this.timeout(10_000);
      for (const status of [200, 500]) {
        const stalling = createServer((request, response) => {
          request.resume();
          request.on('end', () => {
            response.writeHead(status, { 'content-type': 'application/json', 'content-length': '100' });
            response.write('{"result": [');
          });
        });
        await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
        const { port } = stalling.address() as AddressInfo;
        const impatient = createEcaClient({
          baseUrl: `http://127.0.0.1:${port}`,
          csid: CSID,
          retry: 0,
          timeoutMs: 100,
        });
        try {
          if (status === 200) await expectError(impatient.getPendingTasks(), EcaTimeoutError);
          else await expectError(impatient.getPendingTasks(), EcaHttpError, (error) => assert.equal(error.status, 500));
        } finally {
          stalling.closeAllConnections();
          await new Promise((resolve) => stalling.close(resolve));
        }
      }
    });

    it('reports malformed JSON and shape mismatches as schema errors with the path', async function () {
      server.on('/ws/eca/getPendingTasks', { body: '{"result": [', contentType: 'application/json' });
      await expectError(client.getPendingTasks(), EcaSchemaError, (error) => assert.equal(error.path, ''));
      server.on('/ws/eca/getPendingTasks', {
        body: { result: [{ acctId: 'U1' }, { acctId: 'U2', isError: 'maybe' }] },
      });
      await expectError(client.getPendingTasks(), EcaSchemaError, (error) =>
        assert.equal(error.path, 'result[1].isError'),
      );
      server.on('/ws/eca/getPendingTasks', { body: { result: [{ isError: false }] } });
      await expectError(client.getPendingTasks(), EcaSchemaError, (error) => assert.equal(error.path, 'result[0]'));
      server.on('/ws/eca/getPendingTasks', { body: { timestamp: '2024-05-01 10:00:00' } });
      await expectError(client.getPendingTasks(), EcaSchemaError, (error) => assert.equal(error.path, 'result'));
    });

    it('reports a refused connection as EcaNetworkError', async function () {
      const url = server.url;
      await server.close();
      const offline = createEcaClient({ baseUrl: url, csid: CSID, retry: 0, timeoutMs: 1_000 });
      await expectError(offline.getAccountStatus(), EcaNetworkError, (error) =>
        assert.match(error.message, /ECONNREFUSED/),
      );
      server = await startServer();
    });
  });

  describe('keys', function () {
    it('names the missing key of a file operation, without calling the service', async function () {
      const keyless = makeClient({ firmPrivateKey: undefined });
      await expectError(keyless.create({ applicationXml }), EcaCryptoError, (error) =>
        assert.equal(error.key, 'firmPrivateKey'),
      );
      const noPeer = makeClient({ brokeragePublicKey: undefined });
      await expectError(noPeer.create({ applicationXml }), EcaCryptoError, (error) =>
        assert.equal(error.key, 'brokeragePublicKey'),
      );
      const locked = makeClient({ passphrase: undefined });
      await expectError(locked.create({ applicationXml }), EcaCryptoError, (error) =>
        assert.equal(error.key, 'passphrase'),
      );
      assert.equal(server.requests.length, 0);
    });

    it('query operations need no keys', async function () {
      server.on('/ws/eca/getAccountStatus', { body: { status: [] } });
      const keyless = makeClient({ firmPrivateKey: undefined, brokeragePublicKey: undefined });
      assert.deepEqual((await keyless.getAccountStatus()).accounts, []);
    });
  });
});
