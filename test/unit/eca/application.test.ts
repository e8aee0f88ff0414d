import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  APPLICATION_XML_EXAMPLE,
  CUSTOMER_TYPES,
  dailySubmissionCovers,
  ENGINE_READS,
  parseApplication,
  parseApplications,
} from '../../../eca/application.js';
import { EcaRequestError } from '../../../eca/errors.js';
import { ISO_3166_ALPHA3, validateApplicationStructure } from '../../../simulator/formats/application-validation.js';

const FIXTURE = new URL('../../fixtures/eca/application.xml', import.meta.url);

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

  it('the engine reads only the external id, the input language and the customer type, as ENGINE_READS lists them', function () {
    const individual = { externalId: 'EXT-1', inputLanguage: 'en', customerType: 'INDIVIDUAL' };
    assert.deepEqual(parseApplication(valid), individual);
    assert.deepEqual(ENGINE_READS, {
      externalId: 'Applications/Application/Customer@external_id',
      inputLanguage: 'Applications/Application/Customer@input_language',
      customerType: 'Applications/Application/Customer@type',
    });
    // Nothing else of the file reaches the engine, whatever the application holds.
    const chinese = edit(valid, 'input_language="en"', 'input_language="zh-Hans"');
    assert.deepEqual(parseApplication(chinese), { ...individual, inputLanguage: 'zh-Hans' });
    assert.deepEqual(parseApplication(edit(valid, ' input_language="en"', '')), {
      externalId: 'EXT-1',
      customerType: 'INDIVIDUAL',
    });
    assert.deepEqual(parseApplication(edit(valid, 'type="INDIVIDUAL"', 'type="ORG"')), {
      ...individual,
      customerType: 'ORG',
    });
    assert.deepEqual(parseApplication(edit(valid, ' type="INDIVIDUAL"', '')), {
      externalId: 'EXT-1',
      inputLanguage: 'en',
    });
  });

  it('reads the import schema in its default namespace and under a prefix alike', function () {
    const prefixed = valid
      .replace('<Applications xmlns=', '<ib:Applications xmlns:ib=')
      .replace(/<(\/?)(?!\?)([A-Za-z])/g, '<$1ib:$2')
      .replace(/<(\/?)ib:ib:/g, '<$1ib:');
    assert.match(prefixed, /<ib:Customer [^>]*type="INDIVIDUAL"/);
    assert.deepEqual(validateApplicationStructure(prefixed), []);
    assert.deepEqual(parseApplication(prefixed), parseApplication(valid));
  });

  it("says which customer types the day's submitDocuments covers (spec rule 4: individual, joint, retirement)", function () {
    assert.deepEqual(
      CUSTOMER_TYPES.filter((type) => dailySubmissionCovers(type)),
      ['INDIVIDUAL', 'JOINT', 'IRA'],
    );
    assert.equal(dailySubmissionCovers(undefined), false);
    assert.equal(dailySubmissionCovers('individual'), false, 'the schema writes its codes in capitals');
  });

  it('the example is written as firms write the import schema', function () {
    for (const path of [
      /<Applications xmlns="http:\/\/www\.interactivebrokers\.com\/schemas\/IBCust_import">/,
      /<Customer [^>]*external_id="EXT-1"[^>]*type="INDIVIDUAL"/,
      /<AccountHolder>\s*<AccountHolderDetails [^>]*>\s*<Name first="Jane" last="Doe"\/>\s*<Email email=/,
      /<FinancialInformation[^>]*>\s*<SourcesOfWealth>\s*<SourceOfWealth source_type=/,
      /<Accounts>\s*<Account [^>]*>\s*<InvestmentObjectives>\s*<objective>Growth<\/objective>/,
      /<Users>\s*<User [^>]*prefix="jdoexa"\/>/,
    ]) {
      assert.match(valid, path);
    }
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
      (xml) => edit(xml, /<Email email="[^"]*"\/>/, ''),
      /AccountHolder 1: missing e-mail address of an individual/,
    ],
    [
      'missing source of wealth',
      (xml) => edit(xml, /<SourcesOfWealth>[\s\S]*<\/SourcesOfWealth>/, '<SourcesOfWealth/>'),
      /AccountHolder 1: missing source of wealth/,
    ],
    [
      'missing source of wealth (no FinancialInformation at all)',
      (xml) => edit(xml, /<FinancialInformation[\s\S]*<\/FinancialInformation>/, ''),
      /AccountHolder 1: missing source of wealth/,
    ],
    [
      'investment objectives mandatory',
      (xml) => edit(xml, /<InvestmentObjectives>[\s\S]*<\/InvestmentObjectives>/, ''),
      /Account 1: investment objectives are mandatory/,
    ],
    [
      'investment objectives mandatory (an empty list)',
      (xml) => edit(xml, '<objective>Growth</objective>', ''),
      /Account 1: investment objectives are mandatory/,
    ],
    [
      'multiple titles only for an organization',
      (xml) => edit(xml, '<Email email=', '<Title code="MS"/><Title code="DR"/><Email email='),
      /AccountHolder 1: multiple titles are allowed only for an organization/,
    ],
    [
      'invalid country of issue of a licence',
      (xml) => edit(xml, 'IssuingCountry="USA"', 'IssuingCountry="US"'),
      /AccountHolder 1: invalid country of issue of the driver's licence: "US"/,
    ],
    [
      'invalid country of issue of a passport (missing)',
      (xml) => edit(xml, 'DriversLicense="D1234567" IssuingCountry="USA"', 'Passport="P1234567"'),
      /invalid country of issue of the passport: missing/,
    ],
    [
      'prefix: first character',
      (xml) => edit(xml, 'prefix="jdoexa"', 'prefix="Jdoexa"'),
      /Customer: the attribute prefix must have lower-case letters as first and sixth characters/,
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

  it('reads objectives written Objective as well as objective', function () {
    const capital = edit(valid, '<objective>Growth</objective>', '<Objective>Growth</Objective>');
    assert.deepEqual(validateApplicationStructure(capital), []);
  });

  it('allows several titles for an organization and needs no holder e-mail there', function () {
    const org = edit(
      edit(edit(valid, 'type="INDIVIDUAL"', 'type="ORG"'), /<Email email="[^"]*"\/>/, ''),
      '<Name first="Jane" last="Doe"/>',
      '<Name first="Jane" last="Doe"/><Title code="CEO"/><Title code="SECRETARY"/>',
    );
    assert.deepEqual(validateApplicationStructure(org), []);
  });

  it('checks every holder of a joint application', function () {
    const holder = /<AccountHolder>[\s\S]*<\/AccountHolder>/.exec(valid)?.[0] ?? '';
    const second = holder.replace(' first="Jane"', '').replace(/<Email email="[^"]*"\/>/, '');
    const joint = edit(edit(valid, 'type="INDIVIDUAL"', 'type="JOINT"'), holder, `${holder}${second}`);
    const errors = validateApplicationStructure(joint);
    assert.deepEqual(
      errors.map((error) => error.replace(/^Application 1 \(external_id EXT-1\): /, '')),
      [
        'AccountHolder 2: missing first name (holder Doe)',
        'AccountHolder 2: missing e-mail address of an individual (holder Doe)',
      ],
    );
  });

  it('reports every problem at once, one text each, quoting the holder it is about (personal data in free text)', function () {
    const broken = edit(
      edit(edit(valid, ' first="Jane"', ''), /<Email email="[^"]*"\/>/, ''),
      'IssuingCountry="USA"',
      'IssuingCountry="ZZZ"',
    );
    const errors = validateApplicationStructure(broken);
    assert.equal(errors.length, 3, errors.join('\n'));
    for (const text of errors) assert.match(text, /\(holder Doe\)$/);
  });

  it('refuses a file outside the import schema: another root, another namespace or none', function () {
    const elsewhere = edit(valid, /xmlns="[^"]*"/, 'xmlns="urn:eca-example:other"');
    assert.deepEqual(validateApplicationStructure(elsewhere), [
      'the root element Applications must be in the namespace http://www.interactivebrokers.com/schemas/IBCust_import, found urn:eca-example:other',
    ]);
    const none = validateApplicationStructure(edit(valid, / xmlns="[^"]*"/, ''));
    assert.equal(none.length, 1);
    assert.match(none[0] ?? '', /found no namespace/);
    const prefixed = edit(
      edit(valid, '<Applications xmlns=', '<ib:Applications xmlns:ib='),
      '</Applications>',
      '</ib:Applications>',
    );
    assert.deepEqual(validateApplicationStructure(prefixed), []);
    const bare = /<Application>[\s\S]*<\/Application>/.exec(valid)?.[0] ?? '';
    assert.match(validateApplicationStructure(bare)[0] ?? '', /root element must be Applications/);
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
