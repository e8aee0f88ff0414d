/**
 * The canonical form of an application XML (client/canonical-xml.ts): what a start's idempotency compares
 * besides the bytes. What XML gives no meaning to changes nothing; a value, a name or text does.
 */
import assert from 'node:assert/strict';
import { APPLICATION_XML_EXAMPLE } from '../../../eca/application.js';
import { canonicalXml, canonicalXmlSha256, sameApplication } from '../../../client/canonical-xml.js';
import { sha1Of } from '../../../runtime/document-refs.js';

/** The example with its attributes in reverse order on every element. */
const reversedAttributes = (xml: string) =>
  xml.replace(
    /<([\w:]+)((?:\s+[\w:]+="[^"]*")+)(\s*\/?)>/g,
    (_whole, name: string, attributes: string, end: string) => {
      const list = attributes.trim().split(/\s+(?=[\w:]+=")/);
      return `<${name} ${list.reverse().join(' ')}${end}>`;
    },
  );

describe('canonical XML: the application’s meaning, not its bytes', function () {
  const digest = canonicalXmlSha256(APPLICATION_XML_EXAMPLE);

  it('is the same for another attribute order, whitespace between elements, declaration, comments and quoting', function () {
    const variants = [
      reversedAttributes(APPLICATION_XML_EXAMPLE),
      APPLICATION_XML_EXAMPLE.replace(/>\s+</g, '><'),
      APPLICATION_XML_EXAMPLE.replace(/\n/g, '\r\n').replace(/ {2}/g, '\t'),
      APPLICATION_XML_EXAMPLE.replace('<?xml version="1.0" encoding="UTF-8"?>\n', ''),
      APPLICATION_XML_EXAMPLE.replace('<Accounts>', '<!-- the accounts --><Accounts>'),
      APPLICATION_XML_EXAMPLE.replace('<Name first="Jane" last="Doe"/>', "<Name last='Doe' first='Jane'></Name>"),
      APPLICATION_XML_EXAMPLE.replace('<DOB>1985-04-12</DOB>', '<DOB><![CDATA[1985-04-12]]></DOB>'),
      APPLICATION_XML_EXAMPLE.replace('city="New York"', 'city="New&#32;York"'),
    ];
    for (const variant of variants) {
      assert.notEqual(variant, APPLICATION_XML_EXAMPLE);
      assert.equal(canonicalXmlSha256(variant), digest, variant);
    }
    assert.equal(canonicalXmlSha256(new TextEncoder().encode(APPLICATION_XML_EXAMPLE)), digest, 'bytes as text');
  });

  it('differs for another value, attribute, element or text', function () {
    const changes = [
      APPLICATION_XML_EXAMPLE.replace('first="Jane"', 'first="Joan"'),
      APPLICATION_XML_EXAMPLE.replace('first="Jane"', 'first=" Jane"'),
      APPLICATION_XML_EXAMPLE.replace('<Name first="Jane"', '<Name middle="A" first="Jane"'),
      APPLICATION_XML_EXAMPLE.replace('<DOB>1985-04-12</DOB>', '<DOB>1985-04-13</DOB>'),
      APPLICATION_XML_EXAMPLE.replace('<DOB>1985-04-12</DOB>', '<DOB> 1985-04-12</DOB>'),
      APPLICATION_XML_EXAMPLE.replace('<objective>Growth</objective>', ''),
      APPLICATION_XML_EXAMPLE.replace('<objective>', '<Objective>').replace('</objective>', '</Objective>'),
    ];
    for (const change of changes) assert.notEqual(canonicalXmlSha256(change), digest, change);
  });

  it('writes sorted attributes, escaped text and no empty-element shorthand', function () {
    assert.equal(
      canonicalXml(
        '<?xml version="1.0"?>\n<!-- c -->\n<r z="1" a="x &amp; &#38; &quot;y&quot;">\n  <e/>\n  <t>a &lt; b<![CDATA[ & c]]></t>\n</r>',
      ),
      '<r a="x &amp; &amp; &quot;y&quot;" z="1"><e></e><t>a &lt; b &amp; c</t></r>',
    );
  });

  it('tells the same application by its bytes, or by its meaning where the workflow recorded it', function () {
    const reordered = reversedAttributes(APPLICATION_XML_EXAMPLE);
    const recorded = { sha1: sha1Of(new TextEncoder().encode(APPLICATION_XML_EXAMPLE)), canonicalSha256: digest };
    const given = { sha1: sha1Of(new TextEncoder().encode(reordered)), canonicalSha256: canonicalXmlSha256(reordered) };
    assert.equal(sameApplication(recorded, given), true);
    assert.equal(sameApplication(recorded, { ...recorded }), true);
    // A workflow started before 1.1 recorded the SHA-1 alone: its very bytes are still the same application.
    const before = { sha1: recorded.sha1 };
    assert.equal(sameApplication(before, recorded), true);
    assert.equal(sameApplication(before, given), false);
    const changed = APPLICATION_XML_EXAMPLE.replace('first="Jane"', 'first="Joan"');
    const other = { sha1: sha1Of(new TextEncoder().encode(changed)), canonicalSha256: canonicalXmlSha256(changed) };
    assert.equal(sameApplication(recorded, other), false);
  });
});
