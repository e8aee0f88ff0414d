/**
 * The Web API's authentication against the simulator over HTTP: `private_key_jwt` assertions exchanged for
 * bearer tokens, tokens kept and renewed, signed bodies; each refusal typed and counted by the simulator's
 * own records (tokens issued per client).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import {
  CLIENT_ASSERTION_TYPE,
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
} from '../../../webapi/index.js';
import type { WebApiCredentials } from '../../../webapi/index.js';

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

  /** A client asking for the echo operations' scopes (the engine's own calls need others). */
  const client = (credentials: WebApiCredentials, extra: Partial<ConstructorParameters<typeof WebApiClient>[0]> = {}) =>
    new WebApiClient({ ...credentials, baseUrl: sim.url, scopes: ['echo.read', 'echo.write'], ...extra });
  const tokenUrl = () => `${sim.url}${TOKEN_PATH}`;
  const postToken = (body: URLSearchParams | string, type = 'application/x-www-form-urlencoded') =>
    fetch(tokenUrl(), { method: 'POST', headers: { 'content-type': type }, body });
  const detail = async (response: Response) => ((await response.json()) as { detail: string }).detail;
  /** An assertion as the brokerage's OAuth 2.0 sample signs it: `aud` `/token`, 30 s, no `jti`. */
  const sampleAssertion = (credentials: WebApiCredentials & { privateKey: KeyObject | string }) => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: credentials.clientId,
      sub: credentials.clientId,
      aud: '/token',
      exp: now + 20,
      iat: now - 10,
    };
    return signJwt(claims, credentials.privateKey as KeyObject, credentials.keyId);
  };

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

  /** A token request over raw HTTP with the `Host` header given: the status and the problem's detail. */
  const postTokenAs = (host: string, form: URLSearchParams, url = tokenUrl()) =>
    new Promise<{ status: number; detail?: string }>((resolve, reject) => {
      const body = form.toString();
      const sent = request(
        url,
        {
          method: 'POST',
          headers: {
            host,
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, detail: (JSON.parse(text) as { detail?: string }).detail }),
          );
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });

  it('names its token endpoint by its own address, never by the Host header a request carries', async function () {
    const credentials = registered();
    const form = (aud: string) => tokenForm(credentials.clientId, clientAssertion(credentials, aud, Date.now()));
    const forged = await postTokenAs('other-host', form(`http://other-host${TOKEN_PATH}`));
    assert.equal(forged.status, 400, 'an assertion for another token endpoint, with a Host header to match');
    assert.match(forged.detail ?? '', /aud must be this token endpoint/);
    // Both readings of its own identity, whatever the Host header says.
    assert.equal((await postTokenAs('other-host', form(tokenUrl()))).status, 200, 'its URL');
    assert.equal((await postTokenAs('other-host', form('/token'))).status, 200, '/token');
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), 2);
  });

  it('takes the address it is told it is reached at, and no other', async function () {
    const behind = await startSimulator({ publicUrl: 'https://brokerage.example:8443/ignored/path' });
    try {
      const { privateKey, publicKey } = rsa();
      behind.webapi.register({
        clientId: 'behind',
        csid: behind.csid,
        kid: 'k',
        publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      });
      const credentials = { clientId: 'behind', keyId: 'k', privateKey };
      const form = (aud: string) => tokenForm('behind', clientAssertion(credentials, aud, Date.now()));
      const url = `${behind.url}${TOKEN_PATH}`;
      const public_ = `https://brokerage.example:8443${TOKEN_PATH}`;
      assert.equal((await postTokenAs('brokerage.example:8443', form(public_), url)).status, 200, 'its public URL');
      assert.equal((await postTokenAs('127.0.0.1', form('/token'), url)).status, 200, '/token');
      const listening = await postTokenAs(new URL(behind.url).host, form(url), url);
      assert.equal(listening.status, 400, 'the address it listens on is not the one it was told');
      // A client of the engine signing the full URL of the address it was given.
      const api = new WebApiClient({
        ...credentials,
        baseUrl: 'https://brokerage.example:8443/',
        assertionAudience: public_,
        scopes: ['echo.read'],
        fetch: (input, init) => {
          const target = input instanceof Request ? input.url : input.toString();
          return fetch(target.replace('https://brokerage.example:8443', behind.url), init);
        },
      });
      await api.echoHttps();
      assert.equal(behind.webapi.tokensIssued('behind'), 3);
    } finally {
      await behind.close();
    }
    await assert.rejects(startSimulator({ publicUrl: 'ftp://brokerage.example/' }), /publicUrl/);
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
    const readOnly = client(registered(['echo.read']), { scopes: ['echo.read'] });
    await readOnly.echoHttps();
    const refused = await readOnly.echoSignedJwt({}).catch((error: unknown) => error);
    assert.ok(refused instanceof WebApiHttpError && refused.status === 403, String(refused));
  });

  it('asks for a token in both readings at once: 2.29.0’s fields and RFC 7523’s, the scopes, aud /token', async function () {
    const credentials = registered();
    const forms: URLSearchParams[] = [];
    const recording: typeof fetch = (input, init) => {
      // The token source sends its form as URLSearchParams, to a URL string.
      if (typeof input === 'string' && input.endsWith(TOKEN_PATH) && init?.body instanceof URLSearchParams) {
        forms.push(init.body);
      }
      return fetch(input, init);
    };
    const api = new WebApiClient({ ...credentials, baseUrl: sim.url, fetch: recording });
    await api.applicationByExternalId('nobody-asked');
    assert.equal(forms.length, 1);
    const form = forms[0]!;
    assert.equal(form.get('grant_type'), 'client_credentials');
    assert.equal(form.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    assert.equal(form.get('clientAssertionType'), form.get('client_assertion_type'));
    assert.equal(form.get('clientAuthenticationMethod'), 'private_key_jwt');
    assert.equal(form.get('clientId'), credentials.clientId);
    assert.ok(form.get('client_assertion'), 'client_assertion sent');
    assert.equal(form.get('clientAssertion'), form.get('client_assertion'), 'one assertion under both names');
    assert.equal(form.get('scope'), 'accounts.read accounts.write sso-browser-sessions.write');
    const { claims } = decodeJwt(form.get('client_assertion')!);
    assert.equal(claims.aud, '/token', 'the audience the brokerage’s sample signs');
    assert.equal(claims.iss, credentials.clientId);
  });

  it('signs the audience it is given, and asks for the scopes it is given: a token for those alone', async function () {
    const credentials = registered();
    const full = client(credentials, { assertionAudience: tokenUrl(), scopes: ['echo.read'] });
    await full.echoHttps();
    const refused = await full.echoSignedJwt({}).catch((error: unknown) => error);
    assert.ok(refused instanceof WebApiHttpError && refused.status === 403, 'echo.write not asked for');
    const elsewhere = client(credentials, { assertionAudience: 'https://elsewhere.example/token' });
    await assert.rejects(elsewhere.echoHttps(), (error: unknown) => error instanceof WebApiAuthError);
    assert.throws(() => client(credentials, { assertionAudience: 'two words' }), WebApiRequestError);
    assert.throws(() => client(credentials, { scopes: [] }), WebApiRequestError);
    assert.throws(() => client(credentials, { scopes: ['accounts "read"'] }), WebApiRequestError);
  });

  it('takes either reading of the token request, and refuses what neither allows', async function () {
    const credentials = registered(['echo.read', 'accounts.read']);
    const rfc = (assertion: string, extra: Record<string, string> = {}) =>
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: assertion,
        ...extra,
      });
    // The brokerage's sample: RFC 7523's fields, a scope, aud /token, no jti.
    const sample = await postToken(rfc(sampleAssertion(credentials), { scope: 'echo.read' }));
    assert.equal(sample.status, 200, await sample.clone().text());
    assert.equal(((await sample.json()) as { scope: string }).scope, 'echo.read', 'the scope asked for alone');
    // Without jti, another assertion of the same second is no replay.
    assert.equal((await postToken(rfc(sampleAssertion(credentials)))).status, 200);
    // 2.29.0's fields alone: every scope the client registered.
    const documented = await postToken(
      new URLSearchParams({
        clientAssertion: sampleAssertion(credentials),
        clientAssertionType: CLIENT_ASSERTION_TYPE,
        clientAuthenticationMethod: 'private_key_jwt',
        clientId: credentials.clientId,
      }),
    );
    assert.equal(documented.status, 200);
    assert.equal(((await documented.json()) as { scope: string }).scope, 'echo.read accounts.read');
    const issued = sim.webapi.tokensIssued(credentials.clientId);

    const refusals: Array<[string, Response, RegExp]> = [
      [
        'a JSON body',
        await postToken(
          JSON.stringify(
            Object.fromEntries(tokenForm(credentials.clientId, sampleAssertion(credentials), ['echo.read'])),
          ),
          'application/json',
        ),
        /form body/,
      ],
      ['another grant', await postToken(rfc(sampleAssertion(credentials), { grant_type: 'password' })), /grant_type/],
      [
        'another assertion type',
        await postToken(rfc(sampleAssertion(credentials), { client_assertion_type: 'saml' })),
        /client_assertion_type/,
      ],
      [
        'neither reading complete',
        await postToken(new URLSearchParams({ client_assertion: sampleAssertion(credentials) })),
        /needs/,
      ],
      [
        'two assertions',
        await postToken(
          new URLSearchParams({
            ...Object.fromEntries(rfc(sampleAssertion(credentials))),
            clientAssertion: clientAssertion(credentials, '/token', Date.now() - 1000),
          }),
        ),
        /differ/,
      ],
      [
        'a field twice',
        await postToken(`${rfc(sampleAssertion(credentials)).toString()}&grant_type=client_credentials`),
        /more than once/,
      ],
      [
        'a scope not registered',
        await postToken(rfc(sampleAssertion(credentials), { scope: 'echo.read accounts.write' })),
        /invalid_scope: accounts\.write/,
      ],
      [
        'a malformed scope',
        await postToken(rfc(sampleAssertion(credentials), { scope: 'echo.read  accounts.read' })),
        /invalid_scope/,
      ],
      [
        'another client id',
        await postToken(rfc(sampleAssertion(credentials), { client_id: 'someone-else' })),
        /clientId/,
      ],
    ];
    for (const [what, response, reason] of refusals) {
      assert.equal(response.status, 400, what);
      assert.match(await detail(response), reason, what);
    }
    assert.equal(sim.webapi.tokensIssued(credentials.clientId), issued, 'no token for a refused request');
  });

  it('takes a signed body as long-lived as the brokerage’s sample signs one (a day), no longer', async function () {
    const credentials = registered();
    const api = client(credentials);
    const token = await api.tokens.token();
    const send = (lifetimeS: number) => {
      const iat = Math.floor(Date.now() / 1000);
      const body = signJwt(
        { iss: credentials.clientId, iat, exp: iat + lifetimeS },
        credentials.privateKey as KeyObject,
        credentials.keyId,
      );
      return fetch(`${sim.url}/gw/api/v1/echo/signed-jwt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/jwt' },
        body,
      });
    };
    assert.equal((await send(3_600)).status, 200, 'an hour');
    assert.equal((await send(86_400)).status, 200, 'the sample’s day');
    assert.equal((await send(86_401)).status, 403, 'past a day');
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
