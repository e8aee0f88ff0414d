/**
 * Property-based tests of a firm's settings' brokerage URLs (runtime/firm-settings.ts): any text in `baseUrl`,
 * `preferenceUrl` or `webApi.baseUrl` is a typed refusal naming that field or a URL the engine may call (http or
 * https, no user name or password, a host the webhook registry's rules allow); any form of a metadata, link-local,
 * unspecified or multicast address is refused, in every field.
 */
import assert from 'node:assert/strict';
import { checkFirmSettings } from '../../../runtime/firm-settings.js';
import { FirmInputError } from '../../../runtime/firm-errors.js';
import { refusedHost } from '../../../runtime/webhook-input.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';

const FIELDS = ['baseUrl', 'preferenceUrl', 'webApi.baseUrl'] as const;
type Field = (typeof FIELDS)[number];

function settingsWith(field: Field, url: string): Record<string, unknown> {
  if (field === 'webApi.baseUrl') return { webApi: { baseUrl: url, clientId: 'fuzz', keyId: 'k1' } };
  return { [field]: url };
}

const byte = fc.integer({ min: 0, max: 255 });
const hex = (n: number) => n.toString(16);

/** An IPv4 address that is never a brokerage's: link-local, unspecified (0/8), multicast or reserved. */
const refusedV4 = fc.oneof(
  fc.tuple(byte, byte).map(([c, d]) => [169, 254, c, d]),
  fc.tuple(byte, byte, byte).map(([b, c, d]) => [0, b, c, d]),
  fc.tuple(fc.integer({ min: 224, max: 255 }), byte, byte, byte).map(([a, b, c, d]) => [a, b, c, d]),
);

/** Every form of a refused host the rules know: the IPv4 address, inside IPv6 ones, IPv6's own, names; a trailing dot. */
const refusedHostText = fc.oneof(
  refusedV4.map((q) => q.join('.')),
  refusedV4.map((q) => `[::ffff:${q.join('.')}]`),
  refusedV4.map((q) => `[::ffff:${hex((q[0]! << 8) | q[1]!)}:${hex((q[2]! << 8) | q[3]!)}]`),
  refusedV4.map((q) => `[64:ff9b::${q.join('.')}]`),
  refusedV4.map((q) => `[2002:${hex((q[0]! << 8) | q[1]!)}:${hex((q[2]! << 8) | q[3]!)}::1]`),
  fc.integer({ min: 0, max: 0xffff }).map((g) => `[fe80::${hex(g)}]`),
  fc.integer({ min: 0, max: 0xffff }).map((g) => `[ff02::${hex(g)}]`),
  fc.constantFrom('[fd00:ec2::254]', '[fd00:0ec2:0:0:0:0:0:254]', '[::]', '[0:0:0:0:0:0:0:0]'),
  fc.constantFrom('metadata.google.internal', 'METADATA.google.internal.', 'metadata', 'instance-data.'),
  refusedV4.map((q) => `${q.join('.')}.`),
);

/** Text shaped like a URL, and not: schemes, user info, hosts, ports, paths, any characters. */
const urlText = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('http', 'https', 'HTTP', 'file', 'gopher', 'ftp', 'javascript', 'data', 'ws', ''),
      fc.constantFrom('', 'user@', 'user:secret@', ':pw@', '%40@'),
      fc.oneof(
        refusedHostText,
        fc.domain(),
        fc.ipV4().map(String),
        fc.ipV6().map((a) => `[${a}]`),
        fc.constantFrom('localhost', '127.0.0.1', '[::1]', '10.0.0.1'),
      ),
      fc.option(
        fc.integer({ min: 0, max: 70_000 }).map((port) => `:${port}`),
        { nil: '' },
      ),
      fc.webPath(),
    )
    .map(([scheme, user, host, port, path]) => `${scheme}${scheme ? '://' : ''}${user}${host}${port}${path}`),
  fc.string({ maxLength: 80 }),
  fc.constantFrom('http://' + 'a'.repeat(2100) + '.test/', 'file:///etc/passwd', 'http://[fd00:ec2::254'),
);

describe('firm settings: brokerage URLs (fuzz)', function () {
  this.timeout(120_000);

  it('answers any URL text in any URL field with a refusal naming the field, or a URL the engine may call', function () {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), urlText, (field, url) => {
        let accepted;
        try {
          accepted = checkFirmSettings(settingsWith(field, url));
        } catch (error) {
          assert.ok(error instanceof FirmInputError, `${url}: ${String(error)}`);
          assert.equal(error.field, field, `${url}: ${error.message}`);
          return;
        }
        const taken = field === 'webApi.baseUrl' ? accepted.webApi!.baseUrl : accepted[field]!;
        const parsed = new URL(taken);
        assert.ok(['http:', 'https:'].includes(parsed.protocol), url);
        assert.equal(parsed.username + parsed.password, '', url);
        assert.equal(refusedHost(parsed.hostname), undefined, url);
        assert.ok(taken.length <= 2048, url);
      }),
      fuzzParameters('firm settings: brokerage URLs', 2_000),
    );
  });

  it('refuses every form of a metadata, link-local, unspecified or multicast host, in every field', function () {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELDS),
        fc.constantFrom('http', 'https'),
        refusedHostText,
        fc.webPath(),
        (field, scheme, host, path) => {
          const url = `${scheme}://${host}${path}`;
          assert.throws(
            () => checkFirmSettings(settingsWith(field, url)),
            (error: unknown) => error instanceof FirmInputError && error.field === field,
            url,
          );
        },
      ),
      fuzzParameters('firm settings: refused brokerage hosts', 2_000),
    );
  });
});
