import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { OPENAPI_FILE, openApiText } from '../../api/openapi.js';

describe('the OpenAPI document', function () {
  it('is committed as the service serves it (npm run openapi rewrites docs/openapi.json)', async function () {
    const served = await openApiText();
    assert.equal(await readFile(OPENAPI_FILE, 'utf8'), served, 'docs/openapi.json is stale: run npm run openapi');
  });

  it('describes every route with an operation id, its problems, and the API key on all but the service routes', async function () {
    const document = JSON.parse(await openApiText()) as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { operationId?: string; security?: unknown[]; responses: Record<string, unknown> }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    assert.equal(document.openapi, '3.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    assert.ok(operations.length >= 11, `${operations.length} operations`);
    for (const { path, method, operation } of operations) {
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path}: operationId`);
      const service = path === '/healthz' || path === '/readyz';
      assert.deepEqual(operation.security, service ? [] : undefined, `${method} ${path}: security`);
      if (!service) assert.ok(operation.responses['401'], `${method} ${path}: answers 401 as a problem`);
    }
    for (const name of ['Application', 'Problem', 'StartApplicationRequest', 'ApplicationPage']) {
      assert.ok(document.components.schemas[name], `component ${name}`);
    }
  });
});
