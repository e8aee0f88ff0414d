/**
 * The Web API's authentication against the simulator over HTTP: `private_key_jwt` assertions exchanged for
 * bearer tokens, tokens kept and renewed, signed bodies; each refusal typed and counted by the simulator's
 * own records (tokens issued per client).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator } from '../../simulator/server.js';
import {
  clientAssertion,
  decodeJwt,
  JwtError,
  signJwt,
  TOKEN_PATH,
  tokenForm,
  WebApiAuthError,
  WebApiClient,
  WebApiHttpError,
  WebApiRequestError,
} from '../../webapi/index.js';
import type { WebApiCredentials } from '../../webapi/index.js';

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('Web API authentication (OAuth 2.0 private_key_jwt, signed bodies) against the simulator', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let n = 0;

  before(async function () {
    sim = await startSimulator({ startTime: '2025-01-08T10:00:00Z' });
  });
  after(async function () {
    await sim.close();
  });

  /** A client registered at the simulator with a key of its own; answers its credentials. */
  function registered(scopes?: string[]): WebApiCredentials & { publicKey: KeyObject } {
    const { privateKey, publicKey } = rsa();
    const clientId = `client-${++n}`;
    sim.webapi.register({
      clientId,
      csid: sim.csid,
      kid: `key-${n}`,
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      ...(scopes && { scopes }),
    });
    return { clientId, keyId: `key-${n}`, privateKey, publicKey };
  }

  const client = (credentials: WebApiCredentials, extra: Partial<ConstructorParameters<typeof WebApiClient>[0]> = {}) =>
    new WebApiClient({ ...credentials, baseUrl: sim.url, ...extra });

  it('takes one token for many calls of both policies, one for callers at once', async function () {
    const credentials = registered();
    const api = client(credentials);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => api.echoHttps({ i: String(i) })));
    assert.deepEqual(answers[3], { requestMethod: 'GET', securityPolicy: 'HTTPS', queryParameters: { i: '3' } });
    const signed = await api.echoSignedJwt({ note: 'signed' });
    assert.equal(signed.securityPolicy, 'SIGNED_JWT');
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), 1, 'one token request for nine calls');
  });

  it('renews a token before it expires, and after the service revoked it (one retry of the refused call)', async function () {
    const credentials = registered();
    sim.webapi.tokenLifetimeS = 2;
    try {
      const api = client(credentials, { refreshBeforeMs: 1_900 });
      await api.echoHttps();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await api.echoHttps();
      assert.equal(sim.webapi.tokensIssued(credentials.clientId), 2, 'renewed within its last 1.9 s');
    } finally {
      sim.webapi.tokenLifetimeS = 3000;
    }
    const api = client(credentials);
    await api.echoHttps();
    sim.webapi.revokeTokens(credentials.clientId);
    await api.echoSignedJwt({});
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), 4, 'a revoked token is replaced once');
  });

  it('refuses a client whose key the brokerage does not hold, naming the client and never the assertion', async function () {
    const credentials = registered();
    const impostor = client({ ...credentials, privateKey: rsa().privateKey });
    const refusal = await impostor.echoHttps().then(
      () => assert.fail('a token for a key the brokerage does not hold'),
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof WebApiAuthError, String(refusal));
    assert.equal(refusal.status, 400);
    assert.equal(refusal.clientId, credentials.clientId);
    assert.doesNotMatch(refusal.message, /eyJ/, 'no JWT in the message');
    const unknownKid = client({ ...credentials, keyId: 'not-registered' });
    await assert.rejects(unknownKid.echoHttps(), WebApiAuthError);
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), 0);
  });

  it('takes an assertion once, for its own token endpoint only', async function () {
    const credentials = registered();
    const tokenUrl = `${sim.url}${TOKEN_PATH}`;
    const post = (assertion: string) =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: tokenForm(credentials.clientId, assertion),
      });
    const assertion = clientAssertion(credentials, tokenUrl, Date.now());
    assert.equal((await post(assertion)).status, 200);
    const again = await post(assertion);
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.match(((await again.json()) as { detail: string }).detail, /already used/);
    const elsewhere = await post(
      clientAssertion(credentials, 'https://api.example.com/oauth2/api/v1/token', Date.now()),
    );
    assert.match(((await elsewhere.json()) as { detail: string }).detail, /aud/);
    const stale = await post(clientAssertion(credentials, tokenUrl, Date.now() - 10 * 60_000));
    assert.match(((await stale.json()) as { detail: string }).detail, /expired/);
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), 1);
  });

  it("refuses a signed body that was altered, is another client's, has expired or lacks the scope", async function () {
    const credentials = registered();
    const api = client(credentials);
    const token = await api.tokens.token();
    const send = (body: string) =>
      fetch(`${sim.url}/gw/api/v1/echo/signed-jwt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/jwt' },
        body,
      });
    const good = api.signedBody({ amount: 1 });
    assert.equal((await send(good)).status, 200);
    const [header, , signature] = good.split('.');
    const altered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()), amount: 2 }),
    ).toString('base64url');
    assert.equal((await send(`${header}.${altered}.${signature}`)).status, 403);
    const other = registered();
    assert.equal((await send(client(other).signedBody({ amount: 1 }))).status, 403);
    const iat = Math.floor(Date.now() / 1000) - 120;
    const expired = signJwt(
      { iss: credentials.clientId, iat, exp: iat + 60 },
      credentials.privateKey as KeyObject,
      credentials.keyId,
    );
    assert.equal((await send(expired)).status, 403);
    const readOnly = client(registered(['echo.read']));
    await readOnly.echoHttps();
    const refused = await readOnly.echoSignedJwt({}).catch((error: unknown) => error);
    assert.ok(refused instanceof WebApiHttpError && refused.status === 403, String(refused));
  });

  it('refuses bad credentials before anything is sent, naming the field', function () {
    const { privateKey } = rsa();
    assert.throws(
      () => new WebApiClient({ clientId: 'a b', keyId: 'k', privateKey, baseUrl: sim.url }),
      WebApiRequestError,
    );
    assert.throws(
      () => new WebApiClient({ clientId: 'a', keyId: 'k', privateKey: 'not a key', baseUrl: sim.url }),
      (error: unknown) => error instanceof JwtError && /private key cannot be read/.test(error.message),
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    assert.throws(
      () => new WebApiClient({ clientId: 'a', keyId: 'k', privateKey: ec, baseUrl: sim.url }),
      /not an RSA private key/,
    );
  });

  it('reads only RS256 tokens with a kid, and names what is wrong', function () {
    const none = `${Buffer.from('{"alg":"none","kid":"k"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    assert.throws(() => decodeJwt(none), /alg "none" \(RS256 only\)/);
    const noKid = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.x`;
    assert.throws(() => decodeJwt(noKid), /no kid/);
    assert.throws(() => decodeJwt('a.b'), /three base64url parts/);
  });
});
