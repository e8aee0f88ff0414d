/**
 * The OpenAPI document, generated from the routes' zod schemas: `npm run openapi` writes
 * docs/openapi.json; `npm run openapi -- --check` (and test/unit/api/openapi.test.ts) fails when it is stale.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { FileDocumentStore } from '../runtime/document-store.js';
import { buildApi } from './server.js';
import { FirmRegistry } from '../runtime/firms.js';
import type { Database } from '../runtime/database/index.js';
import { packageManifest } from '../runtime/package-info.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The document as the service serves it at /openapi.json, as text (2-space JSON, final newline). */
export async function openApiText(): Promise<string> {
  const { version } = packageManifest();
  const dir = await mkdtemp(join(tmpdir(), 'eca-openapi-'));
  // Never connected nor written: the routes only use them when a request comes.
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  const database = { query: () => Promise.reject(new Error('the OpenAPI document reads no database')) };
  const app = await buildApi({
    engine: { client: new Client({ connection }), store: new FileDocumentStore(dir) },
    verifyKey: () => Promise.resolve(undefined),
    database,
    // With a registry, the admin role's routes are in the document too.
    registry: new FirmRegistry(database as unknown as Database),
    version,
  });
  try {
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await connection.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const text = await openApiText();
  if (process.argv.includes('--check')) {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '');
    if (committed !== text) {
      console.error(`${OPENAPI_FILE} is stale: run npm run openapi`);
      process.exitCode = 1;
    }
    return;
  }
  await writeFile(OPENAPI_FILE, text);
  console.log(`wrote ${OPENAPI_FILE}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
