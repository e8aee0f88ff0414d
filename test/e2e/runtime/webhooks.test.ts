/**
 * The webhook endpoint registry (runtime/webhooks.ts) on both database backends: registration and its
 * checks, secrets sealed at rest, rotation (both secrets sign and verify with `standardwebhooks`),
 * the cursor's compare-and-set against replays, failures, pause, resume and delete.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { webhookHeaders } from '../../../activities/webhook-post.js';
import type { CodecKeyring } from '../../../codec/keyring.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { EventLog, LOG_START, formatCursor } from '../../../runtime/events.js';
import type { NewEvent } from '../../../runtime/events.js';
import { checkWebhookUrl, WebhookInputError, WebhookNotFoundError } from '../../../runtime/webhook-input.js';
import { WebhookSecretsUndecryptable } from '../../../runtime/webhook-secrets.js';
import { WebhookEndpoints } from '../../../runtime/webhooks.js';
import { useDatabaseBackends } from '../../support/databases.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

function keyring(id = 'k1'): CodecKeyring {
  return { keys: [{ id, key: new Uint8Array(randomBytes(32)) }] };
}

function events(csid: string, externalId: string, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    application: `application-${csid}-${externalId}/run`,
    seq: index + 1,
    type: 'application.validating',
    csid,
    externalId,
    from: 'validating',
    to: 'validating',
    at: Date.UTC(2026, 0, 1) + index,
    data: {},
  }));
}

/** Whether `needle` appears anywhere in the endpoint's row, read back as text. */
async function rowContains(db: Database, id: string, needle: string): Promise<boolean> {
  const [row] = await db.query<{ text: string; secrets: Uint8Array }>(
    `SELECT w::text AS text, secrets FROM webhook_endpoints w WHERE id = $1`,
    [id],
  );
  return row!.text.includes(needle) || Buffer.from(row!.secrets).includes(needle);
}

describe('webhook endpoints (runtime/webhooks)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;
      let log: EventLog;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
        log = new EventLog(db);
      });

      after(async function () {
        await db?.close();
      });

      it('registers an endpoint at the end of the log, or from a given cursor, with a backlog', async function () {
        const endpoints = new WebhookEndpoints(db, keyring());
        await log.append(events('REG', 'A', 3));
        const { endpoint, secret } = await endpoints.register({ csid: 'REG', url: ' https://example.com/hooks ' });
        assert.match(secret, SECRET);
        assert.match(endpoint.id, /^wh_[a-z2-7]{16}$/);
        assert.equal(endpoint.url, 'https://example.com/hooks');
        assert.equal(endpoint.state, 'active');
        assert.deepEqual(endpoint.cursor, await log.end('REG'));
        assert.equal(endpoint.backlog, 0);
        const fromStart = await endpoints.register({ csid: 'REG', url: 'http://127.0.0.1:9/x', start: LOG_START });
        assert.equal(fromStart.endpoint.backlog, 3);
        assert.notEqual(fromStart.secret, secret);
        await log.append(events('REG', 'B', 2));
        assert.deepEqual(
          (await endpoints.list('REG')).map((entry) => [entry.id, entry.backlog]),
          [
            [endpoint.id, 2],
            [fromStart.endpoint.id, 5],
          ],
        );
        assert.equal(await endpoints.get('OTHER', endpoint.id), undefined);
        assert.equal(await endpoints.get('REG', 'not-an-id'), undefined);
      });

      it('refuses what is not an endpoint, naming the field', async function () {
        const endpoints = new WebhookEndpoints(db);
        const refused = async (input: Parameters<WebhookEndpoints['register']>[0], field: string) =>
          assert.rejects(endpoints.register(input), (error: unknown) => {
            assert.ok(error instanceof WebhookInputError);
            assert.equal(error.field, field);
            return true;
          });
        await refused({ csid: 'F', url: 'ftp://example.com/' }, 'url');
        await refused({ csid: 'F', url: 'example.com/hooks' }, 'url');
        await refused({ csid: 'F', url: 'https://user:pass@example.com/' }, 'url');
        // Never a receiver: a cloud's metadata service, unspecified and multicast addresses (IPv4, IPv6, mapped).
        for (const url of [
          'http://169.254.169.254/latest/meta-data/',
          'http://[fe80::1]/hooks',
          'http://0.0.0.0:8080/',
          'http://[::ffff:169.254.169.254]/',
          'http://224.0.0.1/',
          'http://metadata.google.internal/computeMetadata/v1/',
          // The same hosts in other forms: a trailing dot, IPv6 forms that carry the IPv4 address (compatible,
          // NAT64, 6to4), and AWS's metadata service over IPv6.
          'http://metadata.google.internal./computeMetadata/v1/',
          'http://169.254.169.254./latest/',
          'http://[::169.254.169.254]/',
          'http://[64:ff9b::a9fe:a9fe]/',
          'http://[64:ff9b::169.254.169.254]/',
          'http://[64:ff9b:1::a9fe:a9fe]/',
          'http://[2002:a9fe:a9fe::1]/',
          'http://[fd00:ec2::254]/latest/',
          'http://[FD00:0EC2:0:0:0:0:0:0254]/',
          'http://[::]/',
          'http://[ff02::1]/',
        ]) {
          await refused({ csid: 'F', url }, 'url');
        }
        // Loopback, private networks and names with a trailing dot stay allowed (a firm's own receiver).
        for (const url of [
          'http://[::1]:8080/hooks',
          'http://127.0.0.1:8080/hooks',
          'http://10.1.2.3/hooks',
          'http://[fd00::1]/hooks',
          'http://[64:ff9b::a01:203]/hooks',
          'https://example.com./hooks',
        ]) {
          assert.equal(checkWebhookUrl(url), new URL(url).toString(), url);
        }
        await refused({ csid: 'no spaces', url: 'https://example.com/' }, 'csid');
        await refused({ csid: 'F', url: 'https://example.com/', description: 'x'.repeat(201) }, 'description');
        await refused({ csid: 'F', url: 'https://example.com/', start: 'yesterday' }, 'cursor');
        const { endpoint } = await endpoints.register({ csid: 'F', url: 'https://example.com/' });
        await assert.rejects(endpoints.rotateSecret('F', endpoint.id, -1), WebhookInputError);
      });

      it('seals the secrets with a keyring: not in the row, opened only with the key', async function () {
        const keys = keyring('seal-1');
        const endpoints = new WebhookEndpoints(db, keys);
        const { endpoint, secret } = await endpoints.register({ csid: 'SEAL', url: 'https://example.com/' });
        const raw = secret.slice('whsec_'.length);
        assert.equal(await rowContains(db, endpoint.id, raw), false);
        assert.equal(await rowContains(db, endpoint.id, Buffer.from(raw, 'base64').toString('hex')), false);
        assert.deepEqual((await endpoints.target(endpoint.id))?.secrets, [secret]);
        await assert.rejects(
          new WebhookEndpoints(db, keyring('seal-1')).target(endpoint.id),
          WebhookSecretsUndecryptable,
        );
        await assert.rejects(new WebhookEndpoints(db).target(endpoint.id), WebhookSecretsUndecryptable);
        // A sealed list copied onto another endpoint's row does not authenticate there.
        const other = await endpoints.register({ csid: 'SEAL', url: 'https://example.com/' });
        await db.query(
          `UPDATE webhook_endpoints SET secrets = (SELECT secrets FROM webhook_endpoints WHERE id = $1) WHERE id = $2`,
          [endpoint.id, other.endpoint.id],
        );
        await assert.rejects(endpoints.target(other.endpoint.id), WebhookSecretsUndecryptable);
        // Without a keyring the list is in the clear (and still read by a process with one).
        const clear = await new WebhookEndpoints(db).register({ csid: 'SEAL', url: 'https://example.com/' });
        assert.equal(await rowContains(db, clear.endpoint.id, clear.secret), true);
        assert.deepEqual((await endpoints.target(clear.endpoint.id))?.secrets, [clear.secret]);
      });

      it('rotates: both secrets sign until the old one expires, each verifies with standardwebhooks', async function () {
        const endpoints = new WebhookEndpoints(db, keyring());
        const { endpoint, secret: first } = await endpoints.register({ csid: 'ROT', url: 'https://example.com/' });
        const { secret: second } = await endpoints.rotateSecret('ROT', endpoint.id);
        assert.notEqual(second, first);
        const { secrets } = (await endpoints.target(endpoint.id))!;
        assert.deepEqual(secrets, [second, first]);
        const body = JSON.stringify({ id: 'evt_1', type: 'application.open' });
        const headers = webhookHeaders(secrets, 'evt_1', body);
        assert.equal(headers['webhook-signature'].split(' ').length, 2);
        for (const secret of [first, second])
          assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
        // Rotating again with no grace drops both earlier secrets at once.
        const { secret: third } = await endpoints.rotateSecret('ROT', endpoint.id, 0);
        const now = (await endpoints.target(endpoint.id))!.secrets;
        assert.deepEqual(now, [third]);
        const signed = webhookHeaders(now, 'evt_2', body);
        assert.throws(() => new Webhook(first).verify(body, signed), /No matching signature/);
        new Webhook(third).verify(body, signed);
        await assert.rejects(endpoints.rotateSecret('OTHER', endpoint.id), WebhookNotFoundError);
      });

      it('moves the cursor by compare-and-set: a replay during delivery wins', async function () {
        const endpoints = new WebhookEndpoints(db);
        const { endpoint } = await endpoints.register({ csid: 'CAS', url: 'https://example.com/', start: LOG_START });
        await log.append(events('CAS', 'A', 3));
        const [e1, e2, e3] = await log.read({ csid: 'CAS', after: LOG_START });
        assert.equal(await endpoints.advance(endpoint.id, LOG_START, e1!.cursor), 'active');
        assert.equal(await endpoints.advance(endpoint.id, e1!.cursor, e2!.cursor), 'active');
        // A delivery still holding e1 as its cursor writes nothing.
        assert.equal(await endpoints.advance(endpoint.id, e1!.cursor, e3!.cursor), undefined);
        const replayed = await endpoints.replay('CAS', endpoint.id, formatCursor(e1!.cursor));
        assert.deepEqual(replayed.cursor, e1!.cursor);
        assert.equal(replayed.backlog, 2);
        // The delivery that had sent e3 after e2 finds the cursor moved back: not overwritten.
        assert.equal(await endpoints.advance(endpoint.id, e2!.cursor, e3!.cursor), undefined);
        assert.deepEqual((await endpoints.get('CAS', endpoint.id))!.cursor, e1!.cursor);
        await assert.rejects(endpoints.replay('CAS', endpoint.id, e3!.cursor), (error: unknown) => {
          assert.ok(error instanceof WebhookInputError);
          assert.equal(error.field, 'cursor');
          return true;
        });
        const record = (await endpoints.get('CAS', endpoint.id))!;
        assert.equal(record.delivered, 2);
        assert.ok(record.lastDeliveredAt instanceof Date);
      });

      it('records failures without secrets, pauses after them, resumes and deletes', async function () {
        const endpoints = new WebhookEndpoints(db, keyring());
        const { endpoint, secret } = await endpoints.register({ csid: 'FAIL', url: 'https://example.com/' });
        // Not failing: a pause after failures does nothing (a resume came first).
        assert.equal(await endpoints.pauseAfterFailures(endpoint.id, 'HTTP 500'), false);
        await endpoints.recordFailure(endpoint.id, `HTTP 500 with ${secret}\nand more`);
        await endpoints.recordFailure(endpoint.id, `HTTP 502 (${secret})`);
        let record = (await endpoints.get('FAIL', endpoint.id))!;
        assert.equal(record.failures, 2);
        assert.equal(record.lastError, 'HTTP 502 (whsec_…)');
        assert.ok(record.lastErrorAt instanceof Date);
        assert.equal(await endpoints.pauseAfterFailures(endpoint.id, `gave up: ${secret}`), true);
        record = (await endpoints.get('FAIL', endpoint.id))!;
        assert.equal(record.state, 'paused');
        assert.equal(record.lastError, 'gave up: whsec_…');
        record = await endpoints.resume('FAIL', endpoint.id);
        assert.deepEqual([record.state, record.failures], ['active', 0]);
        assert.equal((await endpoints.pause('FAIL', endpoint.id)).state, 'paused');
        await assert.rejects(endpoints.pause('OTHER', endpoint.id), WebhookNotFoundError);
        const deleted = await endpoints.delete('FAIL', endpoint.id);
        assert.equal(deleted.state, 'deleted');
        assert.deepEqual((await endpoints.target(endpoint.id))?.secrets, []);
        assert.equal(await endpoints.stateOf(endpoint.id), 'deleted');
        assert.deepEqual(await endpoints.list('FAIL'), []);
        assert.equal((await endpoints.list('FAIL', { includeDeleted: true })).length, 1);
        await assert.rejects(endpoints.resume('FAIL', endpoint.id), /is deleted/);
        await assert.rejects(endpoints.replay('FAIL', endpoint.id, LOG_START), WebhookNotFoundError);
      });
    });
  }
});
