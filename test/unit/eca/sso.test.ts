import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { EcaRequestError, EcaSchemaError } from '../../../eca/errors.js';
import {
  buildLandingUrl,
  buildSsoPayload,
  checkSingleIp,
  decodeSignedUrl,
  EcaSsoSessionIdError,
  SSO_PAYLOAD_FIELDS,
  validateSignedUrl,
} from '../../../eca/sso.js';
import { findLandingPage, LANDING_PAGES } from '../../../eca/landing-pages.js';
import { parseSsoPayload, SsoPayloadRefusal } from '../../../simulator/formats/sso-payload.js';

/** The service's specification, the contract, as a copy kept in the repository (docs/spec/). */
const SPEC = new URL('../../../docs/spec/eca-web-service.md', import.meta.url);
const HOSTS = { allowedHosts: ['portal.example.com', '*.sso.example.com'] };

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

describe('eca/sso: single sign-on', function () {
  describe('landing-page catalogue', function () {
    it('has every row of the spec table (the auto-select row in two variants) with unique ids', function () {
      assert.equal(LANDING_PAGES.length, 170);
      assert.equal(new Set(LANDING_PAGES.map((page) => page.id)).size, LANDING_PAGES.length);
      for (const page of LANDING_PAGES) assert.match(page.id, /^[a-z0-9-]+$/);
      // Display names repeat with different parameters; entries keep them.
      assert.equal(LANDING_PAGES.filter((page) => page.name === 'Close Account').length, 2);
    });

    it("reads the repository's copy of the spec, the same text as the shared spec where that is at hand", function () {
      const shared = new URL('../../../../shared/spec/eca-web-service.md', import.meta.url);
      if (!existsSync(shared)) this.skip();
      assert.equal(readFileSync(SPEC, 'utf8'), readFileSync(shared, 'utf8'), 'docs/spec/eca-web-service.md is stale');
    });

    it('matches the spec table row for row, verbatim', function () {
      const text = readFileSync(SPEC, 'utf8');
      const table = text.slice(text.indexOf('| Target | Parameters |'), text.indexOf('Further landing pages'));
      const rows = table
        .split('\n')
        .filter((line) => line.startsWith('| ') && !line.startsWith('| Target'))
        .map((line) => {
          const [name = '', parameters = ''] = line.slice(2, -2).split(' | ');
          return { name, queries: [...parameters.matchAll(/`([^`]*)`/g)].map((match) => match[1]) };
        });
      assert.equal(rows.length, 169);
      const expected = rows.flatMap((row) => row.queries.map((query) => ({ name: row.name, query })));
      assert.deepEqual(
        LANDING_PAGES.map((page) => page.query),
        expected.map((row) => row.query),
      );
      LANDING_PAGES.forEach((page, index) => assert.ok(page.name.startsWith(expected[index]?.name ?? '?'), page.id));
    });

    it('keeps the odd casing of the spec, e.g. TransACTIONHistory and tradeInFrACTIONs', function () {
      assert.equal(findLandingPage('transaction-history')?.query, 'ACTION=TransactionHistory&SID=<sid>');
      assert.ok(LANDING_PAGES.some((page) => page.query === 'ACTION=TransACTIONHistory&SID=<sid>'));
      assert.ok(
        LANDING_PAGES.some((page) => page.query === 'ACTION=AccountSettings&config=tradeInFrACTIONs&SID=<sid>'),
      );
      assert.match(findLandingPage('order-ticket')?.note ?? '', /1200 px/);
    });
  });

  describe('landing URLs', function () {
    const signed = validateSignedUrl('https://portal.example.com/sso/Login?token=abc&SID=S1D-42', 'prod', HOSTS);

    it('appends ACTION=…&SID=… exactly, with the SID of the signed URL', function () {
      assert.equal(signed.sid, 'S1D-42');
      assert.equal(
        buildLandingUrl(signed, 'statements'),
        'https://portal.example.com/sso/Login?token=abc&SID=S1D-42&ACTION=Statement&SID=S1D-42',
      );
      assert.equal(
        buildLandingUrl('https://portal.example.com/start', 'order-ticket', undefined, { sid: 'X9' }),
        'https://portal.example.com/start?ACTION=ACCT_MGMT_MAIN&loginType=1&clt=0&RL=1#/order-ticket/stock&SID=X9',
      );
    });

    it('fills account placeholders and refuses missing ones', function () {
      assert.equal(
        buildLandingUrl(signed, 'auto-select-account-funding', undefined, { accountId: 'U123' }),
        `${signed.url}&ACTION=TransferFunds&autoSelect=U123&noPickerClear=T`,
      );
      assert.equal(
        buildLandingUrl(signed, 'link-existing-account-to-master', undefined, { masterAccountId: 'F1' }),
        `${signed.url}&forwardTo=AA_LINKAGE&masterAccountId=F1`,
      );
      assert.throws(
        () => buildLandingUrl(signed, 'auto-select-account'),
        (error: unknown) => error instanceof EcaRequestError && error.parameter === 'accountId',
      );
      assert.throws(
        () => buildLandingUrl('https://portal.example.com/start', 'statements'),
        (error: unknown) => error instanceof EcaSsoSessionIdError && error.landing === 'statements',
      );
      assert.throws(() => buildLandingUrl(signed, 'no-such-page'), EcaRequestError);
    });

    // Spec, landing pages: "`<sid>` is the session id of the URL" (where it holds it: not shown).
    it('reads the session id only from one SID query parameter, and builds no landing URL without it', function () {
      const inPath = validateSignedUrl('https://portal.example.com/sso/Login/ABC123?lang=en', 'prod', HOSTS);
      assert.equal(inPath.sid, undefined);
      const differing = validateSignedUrl('https://portal.example.com/sso?SID=A1&SID=B2', 'prod', HOSTS);
      assert.equal(differing.sid, undefined);
      assert.equal(validateSignedUrl('https://portal.example.com/sso?SID=A1&SID=A1', 'prod', HOSTS).sid, 'A1');
      assert.equal(validateSignedUrl('https://portal.example.com/sso?sid=A1', 'prod', HOSTS).sid, undefined);
      for (const [url, landing] of [
        [inPath, 'statements'],
        [differing, 'transfer-funds'],
        [inPath.url, 'trading-permissions'],
      ] as const) {
        assert.throws(
          () => buildLandingUrl(url, landing),
          (error: unknown) =>
            error instanceof EcaSsoSessionIdError &&
            error instanceof EcaSchemaError &&
            !(error instanceof EcaRequestError) &&
            error.landing === landing &&
            /no SID query parameter/.test(error.message),
        );
      }
      // A page without <sid> needs none; a caller that knows the session id passes it.
      assert.equal(
        buildLandingUrl(inPath, 'link-existing-account-to-master', undefined, { masterAccountId: 'F1' }),
        `${inPath.url}&forwardTo=AA_LINKAGE&masterAccountId=F1`,
      );
      assert.equal(
        buildLandingUrl(inPath, 'statements', undefined, { sid: 'ABC123' }),
        `${inPath.url}&ACTION=Statement&SID=ABC123`,
      );
    });

    it('builds TransferFunds with validated method, type and currency', function () {
      assert.equal(
        buildLandingUrl(signed, 'transfer-funds', { type: 'DEPOSIT', method: 'ACH', currency: 'USD' }),
        `${signed.url}&ACTION=TransferFunds&method=ACH&type=DEPOSIT&currency=USD&SID=S1D-42`,
      );
      assert.equal(buildLandingUrl(signed, 'transfer-funds'), `${signed.url}&ACTION=TransferFunds&SID=S1D-42`);
      const bad = (params: object, parameter: string): void =>
        assert.throws(
          () =>
            buildLandingUrl(signed, 'transfer-funds', {
              type: 'WITHDRAWAL',
              method: 'WIRE',
              currency: 'EUR',
              ...params,
            } as never),
          (error: unknown) => error instanceof EcaRequestError && error.parameter === parameter,
        );
      bad({ type: 'deposit' }, 'transferFunds.type');
      bad({ method: 'SWIFT' }, 'transferFunds.method');
      bad({ currency: 'usd' }, 'transferFunds.currency');
      bad({ currency: 'USDT' }, 'transferFunds.currency');
      assert.throws(
        () => buildLandingUrl(signed, 'statements', { type: 'DEPOSIT', method: 'ACH', currency: 'USD' }),
        (error: unknown) => error instanceof EcaRequestError && error.parameter === 'transferFunds',
      );
    });
  });

  describe('signed URL', function () {
    it('decodes base64, checks https and the host, and expires 60 s after issue', function () {
      const issuedAt = new Date('2024-05-01T10:00:00Z');
      const signed = decodeSignedUrl(b64('https://a.sso.example.com/login?SID=abc'), 'qa', { ...HOSTS, issuedAt });
      assert.equal(signed.host, 'a.sso.example.com');
      assert.equal(signed.sid, 'abc');
      assert.equal(signed.expiresAt.toISOString(), '2024-05-01T10:01:00.000Z');
    });

    it('refuses http, foreign hosts, credentials and non-base64', function () {
      const refuses = (url: string, pattern: RegExp): void =>
        assert.throws(
          () => decodeSignedUrl(b64(url), 'prod', HOSTS),
          (error: unknown) => error instanceof EcaSchemaError && pattern.test(error.message),
        );
      refuses('http://portal.example.com/x', /https/);
      refuses('https://evil.example.net/x', /not allowed/);
      refuses('https://sso.example.com.evil.net/x', /not allowed/);
      refuses('https://user:pw@portal.example.com/x', /credentials/);
      refuses('not a url', /not a URL/);
      assert.throws(() => decodeSignedUrl('***', 'prod', HOSTS), EcaSchemaError);
      // Default hosts are placeholders per environment.
      assert.throws(() => decodeSignedUrl(b64('https://portal.example.com/x'), 'prod'), EcaSchemaError);
    });

    it('accepts loopback http only when explicitly allowed', function () {
      const url = b64('http://127.0.0.1:4100/portal?SID=z');
      assert.throws(() => decodeSignedUrl(url, 'qa'), EcaSchemaError);
      assert.equal(decodeSignedUrl(url, 'qa', { allowInsecureLoopback: true }).host, '127.0.0.1');
      assert.throws(
        () => decodeSignedUrl(b64('http://10.0.0.1/portal'), 'qa', { allowInsecureLoopback: true }),
        EcaSchemaError,
      );
    });
  });

  describe('session request', function () {
    it('accepts exactly one IPv4 or IPv6 address', function () {
      assert.equal(checkSingleIp('203.0.113.7'), '203.0.113.7');
      assert.equal(checkSingleIp('2001:db8::1'), '2001:db8::1');
      assert.equal(checkSingleIp(['198.51.100.1']), '198.51.100.1');
      for (const bad of ['', '203.0.113.7,198.51.100.1', '203.0.113.7 198.51.100.1', '999.1.1.1', 'host.example.com']) {
        assert.throws(() => checkSingleIp(bad), EcaRequestError, bad);
      }
      assert.throws(() => checkSingleIp(['203.0.113.7', '198.51.100.1']), /exactly one IP/);
      assert.throws(() => checkSingleIp([]), /exactly one IP/);
    });

    it('writes and reads the payload JSON with the shared field names', function () {
      assert.deepEqual(SSO_PAYLOAD_FIELDS, { userName: 'USER_NAME', ip: 'IP' });
      const payload = buildSsoPayload({ userName: 'jdoexa123', ip: '203.0.113.7' });
      assert.deepEqual(payload, { USER_NAME: 'jdoexa123', IP: '203.0.113.7' });
      assert.deepEqual(parseSsoPayload(JSON.stringify(payload)), { userName: 'jdoexa123', ip: '203.0.113.7' });
      assert.throws(
        () => parseSsoPayload('{"USER_NAME":"u","IP":"1.2.3.4, 5.6.7.8"}'),
        (error: unknown) =>
          error instanceof SsoPayloadRefusal && error.field === 'IP' && /exactly one IP/.test(error.message),
      );
      assert.throws(() => buildSsoPayload({ userName: ' ', ip: '1.2.3.4' }), EcaRequestError);
    });
  });
});
