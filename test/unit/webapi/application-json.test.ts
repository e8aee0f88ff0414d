/**
 * The application XML as the Web API's `Application`: holders where the customer's type puts them, nothing
 * of the file dropped, PDFs with their checksums, and a file that maps to no valid body refused by name.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { applicationJsonOf, camelCase } from '../../../activities/application-json.js';
import { documentJson } from '../../../brokerage/webapi/documents.js';
import { EcaRequestError } from '../../../eca/index.js';
import { holdersOf } from '../../../webapi/index.js';
import { checkFirmSettings } from '../../../runtime/firm-settings.js';
import { FirmInputError } from '../../../runtime/firm-errors.js';
import { applicationXml, pdf } from '../../support/engine.js';

const holderXml = (id: string, first: string) =>
  `<AccountHolder><AccountHolderDetails external_id="${id}"><Name first="${first}" last="Doe"/><Email email="${id}@example.com"/></AccountHolderDetails></AccountHolder>`;

describe('the application XML as the Web API’s Application', function () {
  it('maps an individual: customer, holder, financial information, accounts and users, nothing dropped', function () {
    const body = applicationJsonOf(applicationXml('happy-json-1'));
    assert.equal(body.customer.externalId, 'happy-json-1');
    assert.equal(body.customer.type, 'INDIVIDUAL');
    assert.equal(body.inputLanguage, 'en');
    const [holder] = body.customer.accountHolder!.accountHolderDetails;
    assert.deepEqual(holder!.name, { first: 'Jane', last: 'Doe' });
    assert.equal(holder!.email, 'jane.doe@example.com');
    assert.equal((holder as Record<string, unknown>).dateOfBirth, '1985-04-12');
    assert.deepEqual((holder as Record<string, unknown>).residenceAddress, {
      country: 'USA',
      state: 'NY',
      city: 'New York',
      postalCode: '10001',
      street1: '1 Main Street',
    });
    const financial = (body.customer.accountHolder as Record<string, unknown>).financialInformation as unknown[];
    assert.equal(financial.length, 1);
    assert.deepEqual(body.accounts?.[0], {
      externalId: 'EXT-1-ACCOUNT',
      baseCurrency: 'USD',
      margin: 'Cash',
      multiCurrency: false,
      investmentObjectives: ['Growth'],
      tradingPermissions: [{ product: 'STOCKS', country: 'UNITED STATES' }],
    });
    assert.deepEqual(body.users, [
      { externalIndividualId: 'EXT-1-HOLDER', externalUserId: 'EXT-1-USER', prefix: 'jdoexa' },
    ]);
  });

  it('puts joint holders and an organization’s officers where the document has them', function () {
    const joint = applicationJsonOf(
      applicationXml('happy-json-2', (xml) =>
        xml
          .replace('type="INDIVIDUAL"', 'type="JOINT"')
          .replace(/<AccountHolder>[\s\S]*<\/AccountHolder>/, holderXml('a', 'Ann') + holderXml('b', 'Bob')),
      ),
    );
    assert.deepEqual(
      joint.customer.jointHolders!.firstHolderDetails.map((holder) => holder.name.first),
      ['Ann'],
    );
    assert.deepEqual(
      joint.customer.jointHolders!.secondHolderDetails.map((holder) => holder.name.first),
      ['Bob'],
    );
    const org = applicationJsonOf(
      applicationXml('happy-json-3', (xml) =>
        xml
          .replace('type="INDIVIDUAL"', 'type="ORG"')
          .replace(/<AccountHolder>[\s\S]*<\/AccountHolder>/, holderXml('c', 'Cy')),
      ),
    );
    assert.deepEqual(
      holdersOf(org.customer).map((holder) => holder.externalId),
      ['c'],
    );
    assert.equal(org.customer.accountHolder, undefined);
  });

  it('carries each PDF with its length and SHA-1, and refuses a file without an external id by name', function () {
    const data = pdf('5002');
    const document = documentJson({ formNumber: '5002', fileName: 'Form5002.pdf' }, data, new Date(1_700_000_000_000));
    assert.equal(document.formNumber, 5002);
    assert.equal(document.execTimestamp, 1_700_000_000);
    assert.equal(document.attachedFile.fileLength, data.byteLength);
    assert.equal(document.attachedFile.sha1Checksum, createHash('sha1').update(data).digest('hex'));
    assert.deepEqual(Buffer.from(document.payload!.data, 'base64'), Buffer.from(data));
    assert.throws(
      () => applicationJsonOf(applicationXml('x', (xml) => xml.replace(' external_id="x"', ''))),
      (error: unknown) => error instanceof EcaRequestError && /customer\.externalId/.test(error.message),
    );
    assert.throws(() => applicationJsonOf('<Applications/>'), EcaRequestError);
    assert.equal(camelCase('is_used_for_funds'), 'isUsedForFunds');
  });

  it('takes a firm on the Web API only with its client', function () {
    assert.equal(checkFirmSettings({}).protocol, 'xml');
    assert.throws(
      () => checkFirmSettings({ protocol: 'webapi' }),
      (error: unknown) => error instanceof FirmInputError && /webApi/.test(error.message),
    );
    const settings = checkFirmSettings({
      protocol: 'webapi',
      webApi: { baseUrl: 'https://api.example.test', clientId: 'c1', keyId: 'k1' },
    });
    assert.equal(settings.webApi?.clientId, 'c1');
    assert.throws(() => checkFirmSettings({ protocol: 'soap' }), FirmInputError);
  });
});
