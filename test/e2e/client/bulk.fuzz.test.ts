/**
 * Fuzzing `eca bulk`'s filter (client/visibility-filter.ts): any text is a typed refusal or a filter the
 * engine writes back inside the firm's scope; on a real server, any filter the grammar takes matches
 * only the caller's firm.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bulkQuery, planBulk } from '../../../client/bulk.js';
import { InvalidInputError, startApplication } from '../../../client/index.js';
import type { EngineContext } from '../../../client/index.js';
import { FILTER_ATTRIBUTES, filterText, parseFilter } from '../../../client/visibility-filter.js';
import type { FilterNode } from '../../../client/visibility-filter.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { applicationXml } from '../../support/engine.js';
import { devServerEnv } from '../../support/servers.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';

const SCOPE = ['WorkflowType', 'ExecutionStatus', 'EcaCsid'];

/** Texts made of the grammar's own pieces (and its breakouts), so that many parse. */
const tokenText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...FILTER_ATTRIBUTES, ...SCOPE, 'TaskQueue', 'ecaCsid'),
      fc.constantFrom(
        '=',
        '!=',
        '>',
        '<=',
        '(',
        ')',
        ',',
        'AND',
        'or',
        'NOT',
        'IN',
        'BETWEEN',
        'IS',
        'NULL',
        'STARTS_WITH',
      ),
      fc.constantFrom("'x'", "'FIRM-B'", "')", "' OR '1'='1", '"a\'b"', "'\\'", '--', ';', '`', '\\', '-1', '3.5'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(' '));

const value = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -1000, max: 1000 }));
const attribute = fc.constantFrom(...FILTER_ATTRIBUTES);
const filterNode: fc.Arbitrary<FilterNode> = fc.letrec<{ node: FilterNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('compare' as const),
      attribute,
      op: fc.constantFrom('=', '!=', '>', '>=', '<', '<=' as const),
      value,
    }),
    fc.record({
      kind: fc.constant('in' as const),
      attribute,
      not: fc.boolean(),
      values: fc.array(value, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ kind: fc.constant('startsWith' as const), attribute, value: fc.string({ maxLength: 12 }) }),
    fc.record({ kind: fc.constant('null' as const), attribute, not: fc.boolean() }),
    fc.record({
      kind: fc.constantFrom('and' as const, 'or' as const),
      parts: fc.array(tie('node'), { minLength: 2, maxLength: 3 }),
    }),
  ),
})).node;

/** The query as the server will read it: the scope must be a top-level conjunct whatever the filter. */
function assertScoped(query: string, csid: string): void {
  const tree = parseFilter(query, [...FILTER_ATTRIBUTES, ...SCOPE]);
  assert.equal(tree.kind, 'and', query);
  const parts = (tree as { parts: FilterNode[] }).parts;
  assert.deepEqual(parts[2], { kind: 'compare', attribute: 'EcaCsid', op: '=', value: csid }, query);
  assert.equal(parts.length, 4, query);
}

describe('fuzz: eca bulk filters', function () {
  it('any text: a typed refusal, or a filter written back inside the scope', function () {
    fc.assert(
      fc.property(
        fc.oneof(tokenText, fc.string({ maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 30 })),
        (text) => {
          let query: string;
          try {
            query = bulkQuery('FIRM-A', text);
          } catch (error) {
            if (error instanceof InvalidInputError) return;
            throw error;
          }
          assertScoped(query, 'FIRM-A');
        },
      ),
      fuzzParameters('bulk filter: any text', 2000),
    );
  });

  it('any filter the grammar builds is written back as it reads, and stays in the scope', function () {
    fc.assert(
      fc.property(filterNode, (node) => {
        const text = filterText(node);
        assert.deepEqual(parseFilter(text), parseFilter(filterText(parseFilter(text))));
        assertScoped(bulkQuery("FIRM-'A", text), "FIRM-'A");
      }),
      fuzzParameters('bulk filter: grammar round trip', 1000),
    );
  });

  describe('on a real server with two firms', function () {
    this.timeout(120_000);
    let dir: string;
    let a: EngineContext;
    const run = randomUUID().slice(0, 6);
    const handles: Array<{ terminate(reason: string): Promise<unknown> }> = [];

    before(async function () {
      const env = await devServerEnv();
      dir = await mkdtemp(join(tmpdir(), 'eca-bulk-fuzz-'));
      const store = new FileDocumentStore(dir);
      for (const csid of [`FUZZ-A-${run}`, `FUZZ-B-${run}`]) {
        const ctx: EngineContext = { client: env.client, store, csid, taskQueue: `bulk-fuzz-${run}` };
        if (!a) a = ctx;
        for (let i = 0; i < 2; i++) {
          const xml = applicationXml(`fuzz-${run}-${csid.slice(5, 6)}${i}`);
          handles.push((await startApplication(ctx, { applicationXml: xml })).handle);
        }
      }
    });

    after(async function () {
      for (const handle of handles) await handle.terminate('test done').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    });

    it("any filter the grammar takes matches the caller's firm only", async function () {
      await fc.assert(
        fc.asyncProperty(filterNode, async (node) => {
          const plan = await planBulk(a, { query: filterText(node) }).catch((error: unknown) => {
            // The server may refuse what the grammar allows (a number compared with a keyword, say): typed.
            if (error instanceof InvalidInputError) return undefined;
            throw error;
          });
          if (!plan) return;
          assert.ok(plan.matching <= 2, `${plan.query} matched ${plan.matching}`);
          assert.ok(
            plan.sample.every((id) => id.includes(a.csid)),
            plan.query,
          );
        }),
        fuzzParameters('bulk filter: real server, two firms', 40),
      );
    });
  });
});
