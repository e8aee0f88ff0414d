import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { OPENAPI_FILE, openApiText } from '../../../api/openapi.js';

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

describe('the OpenAPI document as a contract (api/contract.ts)', function () {
  type Node = Record<string, unknown>;
  let document: {
    paths: Record<string, Record<string, Node & { responses: Record<string, Node> }>>;
    components: { schemas: Record<string, Node> };
  };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ where: `${method} ${path}`, operation })),
    );
  /** Every schema object under a node, components followed once by name. */
  const schemasUnder = (root: unknown, seen = new Set<string>(), found: Node[] = []): Node[] => {
    if (Array.isArray(root)) root.forEach((entry) => schemasUnder(entry, seen, found));
    else if (typeof root === 'object' && root !== null) {
      const node = root as Node;
      const ref = typeof node.$ref === 'string' ? node.$ref.split('/').pop() : undefined;
      if (ref !== undefined && !seen.has(ref)) {
        seen.add(ref);
        schemasUnder(document.components.schemas[ref], seen, found);
      }
      found.push(node);
      Object.entries(node).forEach(
        ([key, value]) => key !== 'example' && key !== 'examples' && schemasUnder(value, seen, found),
      );
    }
    return found;
  };

  before(async function () {
    document = JSON.parse(await openApiText()) as typeof document;
  });

  it('holds one component per shape, each used', function () {
    const names = Object.keys(document.components.schemas);
    const used = new Set(
      schemasUnder(document.paths)
        .map((node) => node.$ref)
        .filter((ref): ref is string => typeof ref === 'string')
        .map((ref) => ref.split('/').pop()),
    );
    for (const name of names) {
      assert.ok(used.has(name), `${name} is used`);
      if (name.endsWith('Input')) assert.ok(names.includes(name.slice(0, -5)), `${name}: a second form of a shape`);
    }
  });

  it('declares every error as a problem, and answers open to additions', function () {
    for (const { where, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = response.content as Record<string, { schema: Node }> | undefined;
        if (Number(status) >= 400) {
          assert.deepEqual(Object.keys(content ?? {}), ['application/problem+json'], `${where} ${status}`);
          assert.equal(content?.['application/problem+json']?.schema.$ref, '#/components/schemas/Problem');
          continue;
        }
        for (const node of schemasUnder(content)) {
          assert.notEqual(node.additionalProperties, false, `${where} ${status}: a closed object`);
          assert.ok(!(Array.isArray(node.enum) && node.enum.length > 1), `${where} ${status}: a closed enum`);
        }
      }
    }
  });

  it('names the roles, the headers and an example of every operation', function () {
    for (const { where, operation } of operations()) {
      const service = Array.isArray(operation.security) && operation.security.length === 0;
      if (!service) assert.ok((operation['x-roles'] as string[] | undefined)?.length, `${where}: x-roles`);
      let example = Object.values((operation.requestBody as Node | undefined)?.content ?? {}).some(
        (media) => (media as Node).example !== undefined,
      );
      example ||= ((operation.parameters ?? []) as Node[]).some((parameter) => parameter.example !== undefined);
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = (response.headers ?? {}) as Node;
        assert.ok(headers['X-Request-Id'], `${where} ${status}: X-Request-Id`);
        if (status === '201') assert.ok(headers.Location, `${where}: Location`);
        if (status === '429') assert.ok(headers['Retry-After'], `${where}: Retry-After`);
        if (Number(status) < 300) {
          example ||= Object.values(response.content ?? {}).some((media) => (media as Node).example !== undefined);
        }
      }
      assert.ok(example, `${where}: an example`);
    }
  });
});
