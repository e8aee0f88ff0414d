import assert from 'node:assert/strict';
import {
  canonicalEnumerationType,
  ENUMERATION_TYPES,
  isEnumerationType,
  parseEnumerationsCsv,
} from '../../../eca/enumerations.js';
import { EcaSchemaError } from '../../../eca/errors.js';

describe('eca/enumerations', function () {
  it('lists every type of the spec, the BUSINESS_OCCUPATION alias included', function () {
    assert.equal(ENUMERATION_TYPES.length, 13);
    assert.ok(isEnumerationType('BUSINESS_OCCUPATION'));
    assert.equal(canonicalEnumerationType('BUSINESS_OCCUPATION'), 'BUSINESS_AND_OCCUPATION');
    assert.equal(canonicalEnumerationType('ACATS'), 'ACATS');
    assert.ok(!isEnumerationType('acats'));
  });

  it('parses the CSV into rows keyed by the header, quotes, BOM and blank lines included', function () {
    const csv = '\uFEFFbroker_id, broker_name\r\n0005,"Alpha, Beta & Co"\r\n\r\n0161,"Quote ""Q"" Ltd"\r\n';
    assert.deepEqual(parseEnumerationsCsv(csv), [
      { broker_id: '0005', broker_name: 'Alpha, Beta & Co' },
      { broker_id: '0161', broker_name: 'Quote "Q" Ltd' },
    ]);
    assert.deepEqual(parseEnumerationsCsv('a,b\n'), []);
    assert.deepEqual(parseEnumerationsCsv(''), []);
  });

  it('raises a schema error for a CSV it cannot read', function () {
    assert.throws(() => parseEnumerationsCsv('a,b\n1,2,3\n'), EcaSchemaError);
    assert.throws(() => parseEnumerationsCsv('a,b\n"unterminated,2\n'), EcaSchemaError);
  });
});
