/**
 * Signed bodies taken once by the simulator, over raw HTTP: a signed create or account management request
 * sent a second time is refused as a signed body that fails (403) and does nothing, by its `jti` when it
 * carries one and by its signed content when it does not; the engine's bodies each carry a fresh `jti`.
 */
import assert from 'node:assert/strict';
import { applicationJsonOf } from '../../../activities/application-json.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { decodeJwt, signJwt } from '../../../webapi/index.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { applicationXml } from '../../support/engine.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import type { RegisteredWebApiClient } from '../../support/webapi-clients.js';

describe('signed bodies, taken once by the simulator', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let registered: RegisteredWebApiClient;
  let api: WebApiClient;

  before(async function () {
    ({ sim } = await start());
    registered = registerWebApiClient(sim, {
      clientId: 'replays',
      csid: sim.csid,
      scopes: ['accounts.read', 'accounts.write', 'echo.write'],
    });
    api = registered.client({ timeoutMs: 5000 });
  });
  after(async function () {
    await sim.close();
  });

  /** `body` sent as it is, with the client's bearer token: the status and the JSON answer. */
  async function send(
    method: 'POST' | 'PATCH',
    path: string,
    body: string,
  ): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
    const response = await fetch(`${sim.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await api.tokens.token()}`,
        'content-type': 'application/jwt',
        accept: 'application/json',
      },
      body,
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as Record<string, unknown>,
    };
  }
  const requestsOf = (accountId: string) =>
    fetch(`${sim.url}/_sim/records?csid=${sim.csid}`)
      .then((response) => response.json() as Promise<{ accounts: Array<{ accountId: string; requests: unknown[] }> }>)
      .then((records) => records.accounts.find((account) => account.accountId === accountId)?.requests ?? []);

  it('refuses the same signed PATCH sent twice: one request in the records', async function () {
    await api.createAccount(applicationJsonOf(applicationXml('replay-patch')));
    const { accountId = assert.fail('an account for replay-patch') } =
      await api.applicationByExternalId('replay-patch');
    const body = api.signedBody({ accountManagementRequests: { abandonAccount: { accountId } } });
    const first = await send('PATCH', '/gw/api/v1/accounts', body);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await send('PATCH', '/gw/api/v1/accounts', body);
    assert.equal(again.status, 403, JSON.stringify(again.body));
    assert.equal(again.type, 'application/problem+json; charset=utf-8');
    assert.match(String(again.body.detail), /JWT validation failed: .*already used/);
    assert.equal((await requestsOf(accountId)).length, 1, 'one request made');
    // A body signed anew (a fresh jti) for the same request is a request of its own.
    const resigned = await send(
      'PATCH',
      '/gw/api/v1/accounts',
      api.signedBody({ accountManagementRequests: { abandonAccount: { accountId } } }),
    );
    assert.equal(resigned.status, 200, JSON.stringify(resigned.body));
    assert.equal((await requestsOf(accountId)).length, 2);
  });

  it('refuses the same signed create sent twice: one create processed', async function () {
    const body = api.signedBody({ application: applicationJsonOf(applicationXml('replay-create')) });
    assert.equal((await send('POST', '/gw/api/v1/accounts', body)).status, 200);
    const again = await send('POST', '/gw/api/v1/accounts', body);
    assert.equal(again.status, 403, JSON.stringify(again.body));
    const records = (await (await fetch(`${sim.url}/_sim/records?externalId=replay-create`)).json()) as {
      externalIds: Array<{ createsProcessed: number; accountsCreated: number }>;
    };
    assert.equal(records.externalIds[0]?.createsProcessed, 1);
    assert.equal(records.externalIds[0]?.accountsCreated, 1);
  });

  it('refuses a body without a jti sent twice, and a jti used again in another body', async function () {
    const iat = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      signJwt({ iss: registered.clientId, iat, exp: iat + 60, ...claims }, registered.privateKey, registered.kid);
    const bare = sign({ note: 'no jti' });
    assert.equal((await send('POST', '/gw/api/v1/echo/signed-jwt', bare)).status, 200);
    const bareAgain = await send('POST', '/gw/api/v1/echo/signed-jwt', bare);
    assert.equal(bareAgain.status, 403);
    assert.match(String(bareAgain.body.detail), /already used/);
    // The same claims, the signature's base64url written otherwise (its last character's spare bits): the same body.
    const [head, claims, signature] = bare.split('.') as [string, string, string];
    const spare = ({ A: 'B', Q: 'R', g: 'h', w: 'x' } as Record<string, string | undefined>)[signature.at(-1)!];
    assert.ok(spare, 'a canonical encoding leaves the spare bits 0');
    const rewritten = `${head}.${claims}.${signature.slice(0, -1)}${spare}`;
    const rewrittenAgain = await send('POST', '/gw/api/v1/echo/signed-jwt', rewritten);
    assert.equal(rewrittenAgain.status, 403);
    assert.match(String(rewrittenAgain.body.detail), /already used/, 'a replay, not a bad signature');
    assert.equal((await send('POST', '/gw/api/v1/echo/signed-jwt', sign({ jti: 'once' }))).status, 200);
    const reused = await send('POST', '/gw/api/v1/echo/signed-jwt', sign({ jti: 'once', note: 'other' }));
    assert.equal(reused.status, 403);
    assert.match(String(reused.body.detail), /jti/);
    assert.equal((await send('POST', '/gw/api/v1/echo/signed-jwt', sign({ jti: '' }))).status, 403);
  });

  it('signs every body with a jti of its own', function () {
    const payload = { accountManagementRequests: { abandonAccount: { accountId: 'U1' } } };
    const [one, two] = [api.signedBody(payload), api.signedBody(payload)];
    const jti = (body: string) => decodeJwt(body).claims.jti;
    assert.equal(typeof jti(one), 'string');
    assert.match(String(jti(one)), /^[0-9a-f-]{36}$/);
    assert.notEqual(jti(one), jti(two));
  });
});
