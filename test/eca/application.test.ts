import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { APPLICATION_XML_EXAMPLE, parseApplication, parseApplications } from '../../eca/application.js';
import { EcaRequestError } from '../../eca/errors.js';
import { ISO_3166_ALPHA3, validateApplicationStructure } from '../../simulator/formats/application-validation.js';

const FIXTURE = new URL('../fixtures/eca/application.xml', import.meta.url);

/** Edits the valid example with a string replacement that must apply. */
function edit(xml: string, from: string | RegExp, to: string): string {
  const result = xml.replace(from, to);
  assert.notEqual(result, xml, `edit ${String(from)} did not apply`);
  return result;
}

describe('eca/application: application XML', function () {
  let valid: string;

  before(async function () {
    valid = await readFile(FIXTURE, 'utf8');
  });

  it('the fixture and the exported example are structurally valid and the same document', function () {
    assert.deepEqual(validateApplicationStructure(valid), []);
    assert.deepEqual(validateApplicationStructure(APPLICATION_XML_EXAMPLE), []);
    assert.equal(valid, APPLICATION_XML_EXAMPLE);
  });

  it('summarises the application', function () {
    const summary = parseApplication(valid);
    assert.equal(summary.externalId, 'EXT-1');
    assert.equal(summary.customerType, 'INDIVIDUAL');
    assert.equal(summary.customerTypeKnown, true);
    assert.equal(summary.inputLanguage, 'en');
    assert.equal(summary.prefix, 'jdoexa');
    assert.equal(summary.email, 'jane.doe@example.com');
    assert.equal(summary.firstName, 'Jane');
    assert.equal(summary.lastName, 'Doe');
    assert.deepEqual(summary.holders, [{ firstName: 'Jane', lastName: 'Doe', titles: ['MS'] }]);
    assert.deepEqual(summary.accounts, [{ baseCurrency: 'USD', margin: 'Cash', investmentObjectives: ['Growth'] }]);
  });

  it('parseApplication wants exactly one application; parseApplications reads several', function () {
    const twice = edit(
      valid,
      '</Applications>',
      `${/<Application>[\s\S]*<\/Application>/.exec(valid)?.[0]}</Applications>`,
    );
    assert.equal(parseApplications(twice).length, 2);
    assert.throws(() => parseApplication(twice), EcaRequestError);
    assert.throws(
      () => parseApplication('<Applications><Application>'),
      (error: unknown) => error instanceof EcaRequestError && error.parameter === 'applicationXml',
    );
  });

  const rules: Array<[rule: string, mutate: (xml: string) => string, expected: RegExp]> = [
    ['missing first name', (xml) => edit(xml, ' first="Jane"', ''), /AccountHolder 1: missing first name/],
    ['missing last name', (xml) => edit(xml, ' last="Doe"', ' last=""'), /AccountHolder 1: missing last name/],
    [
      'missing e-mail of an individual',
      (xml) => edit(xml, ' email="jane.doe@example.com"', ''),
      /missing e-mail address of an individual/,
    ],
    [
      'missing source of wealth',
      (xml) => edit(xml, /<SourcesOfWealth>[\s\S]*<\/SourcesOfWealth>/, '<SourcesOfWealth/>'),
      /AccountHolder 1: missing source of wealth/,
    ],
    [
      'investment objectives mandatory',
      (xml) => edit(xml, /<InvestmentObjectives>[\s\S]*<\/InvestmentObjectives>/, ''),
      /Account 1: investment objectives are mandatory/,
    ],
    [
      'multiple titles only for an organization',
      (xml) => edit(xml, '<Title code="MS"/>', '<Title code="MS"/><Title code="DR"/>'),
      /multiple titles are allowed only for an organization/,
    ],
    [
      'invalid country of issue of a licence',
      (xml) => edit(xml, 'IssuingCountry="USA"', 'IssuingCountry="US"'),
      /invalid country of issue of the driver's licence: "US"/,
    ],
    [
      'prefix: first character',
      (xml) => edit(xml, 'prefix="jdoexa"', 'prefix="Jdoexa"'),
      /prefix must have lower-case letters as first and sixth characters/,
    ],
    [
      'prefix: sixth character',
      (xml) => edit(xml, 'prefix="jdoexa"', 'prefix="jdoex1"'),
      /prefix must have lower-case letters as first and sixth characters/,
    ],
    [
      'prefix: too short for a sixth character',
      (xml) => edit(xml, 'prefix="jdoexa"', 'prefix="jdo"'),
      /prefix must have lower-case letters as first and sixth characters/,
    ],
  ];

  for (const [rule, mutate, expected] of rules) {
    it(`reports exactly one error for: ${rule}`, function () {
      const errors = validateApplicationStructure(mutate(valid));
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0] ?? '', expected);
      assert.match(errors[0] ?? '', /^Application 1 \(external_id EXT-1\)/);
    });
  }

  it('allows several titles for an organization and needs no customer e-mail there', function () {
    const org = edit(
      edit(edit(valid, 'type="INDIVIDUAL"', 'type="ORG"'), ' email="jane.doe@example.com"', ''),
      '<Title code="MS"/>',
      '<Title code="CEO"/><Title code="SECRETARY"/>',
    );
    assert.deepEqual(validateApplicationStructure(org), []);
    assert.deepEqual(parseApplication(org).holders[0]?.titles, ['CEO', 'SECRETARY']);
  });

  it('reports every problem at once, one text each, without personal data', function () {
    const broken = edit(
      edit(edit(valid, ' first="Jane"', ''), ' email="jane.doe@example.com"', ''),
      'IssuingCountry="USA"',
      'IssuingCountry="ZZZ"',
    );
    const errors = validateApplicationStructure(broken);
    assert.equal(errors.length, 3, errors.join('\n'));
    for (const text of errors) assert.doesNotMatch(text, /Jane|Doe|D1234567|example\.com/);
  });

  it('answers malformed XML with a single error text instead of throwing', function () {
    const errors = validateApplicationStructure('<Applications><Application></Applications>');
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /not well-formed/);
    assert.deepEqual(validateApplicationStructure(''), ['the XML is empty']);
    assert.equal(validateApplicationStructure('<Other/>').length, 1);
  });

  it('knows the ISO 3166 alpha-3 codes', function () {
    assert.equal(ISO_3166_ALPHA3.size, 249);
    for (const code of ['USA', 'GBR', 'DEU', 'CHN', 'HKG', 'CAN', 'SSD']) assert.ok(ISO_3166_ALPHA3.has(code), code);
    for (const code of ['US', 'UK', 'EUR', 'usa']) assert.ok(!ISO_3166_ALPHA3.has(code), code);
  });
});
