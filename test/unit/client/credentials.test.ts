/** `eca password` (takeCredentials): the temporary passwords are handed out once, even to two calls at the same time. */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { takeCredentials } from '../../../client/credentials.js';
import type { EngineContext } from '../../../client/context.js';
import { EcaCsid } from '../../../domain/search-attributes.js';
import { DocumentNotFound, FileDocumentStore } from '../../../runtime/document-store.js';
import type { DocumentRef } from '../../../domain/documents.js';
import { generateCodecKeyring } from '../../../codec/index.js';

const CSID = 'CSID-T';

/** Calls wait at the gate until `count` of them arrived, then all go on together. */
function gate(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

/** A client whose application holds `credentials`; its state queries wait at `atQuery`. */
function clientWith(credentials: DocumentRef, atQuery: () => Promise<void>): Client {
  const handle = {
    describe: () =>
      Promise.resolve({ typedSearchAttributes: { get: (key: unknown) => (key === EcaCsid ? CSID : undefined) } }),
    query: async () => {
      await atQuery();
      return { externalId: 'client-42', accountId: 'U1234567', credentials };
    },
  };
  return { workflow: { getHandle: () => handle } } as unknown as Client;
}

describe('takeCredentials: once only', function () {
  let dir: string;
  let store: FileDocumentStore;
  let credentials: DocumentRef;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-credentials-'));
    store = new FileDocumentStore(dir, { keyring: generateCodecKeyring() });
    const kept = { externalId: 'client-42', users: [{ userName: 'jdoe42', temporaryPassword: 'Tmp-4821' }] };
    credentials = await store.put(new TextEncoder().encode(JSON.stringify(kept)), {
      owner: 'application-CSID-T-client-42',
    });
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('hands the password to exactly one of two calls at the same time; the other gets NO_CREDENTIALS', async function () {
    const ctx: EngineContext = { client: clientWith(credentials, gate(2)), store, csid: CSID };
    const outcomes = await Promise.allSettled([takeCredentials(ctx, 'client-42'), takeCredentials(ctx, 'client-42')]);
    const given = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    assert.equal(given.length, 1, 'the password was handed out twice');
    assert.equal(given[0]!.value.users[0]!.temporaryPassword, 'Tmp-4821');
    assert.equal(refused.length, 1);
    assert.equal((refused[0]!.reason as { code?: string }).code, 'NO_CREDENTIALS');
    assert.match(String(refused[0]!.reason), /already handed out/);
    // Nothing of it is left in the store.
    await assert.rejects(store.get(credentials), DocumentNotFound);
    const left = await readdir(join(dir, credentials.ref, '..'));
    assert.deepEqual(left, []);
  });

  it('the store gives a document to exactly one of many takes at the same time', async function () {
    const takes = await Promise.allSettled(Array.from({ length: 16 }, () => store.take(credentials)));
    assert.equal(takes.filter((take) => take.status === 'fulfilled').length, 1);
    for (const take of takes) {
      if (take.status === 'rejected') assert.ok(take.reason instanceof DocumentNotFound, String(take.reason));
    }
  });
});
