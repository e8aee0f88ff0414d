/**
 * The Java client generated from docs/openapi.json (openapi-generator `java`, okhttp-gson) compiles, and
 * reads today's answers and a newer server's (an unknown field, a new lifecycle state, a new event type),
 * served from fixtures by a small local server. Its dependencies are resolved once with Maven into the
 * cache (scripts/contract-tools.ts): the client then compiles with `javac` alone, in a few seconds.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { javaClientDependencies } from '../../../scripts/contract-tools.js';
import {
  compileJava,
  FUTURE,
  futureApplication,
  futureEventPage,
  generateClient,
  printed,
  REPO,
  sh,
  timed,
  workDir,
} from './support.js';

const today = {
  application: {
    workflowId: 'application:CSID-1:today',
    externalId: 'today',
    csid: 'CSID-1',
    lifecycleState: 'tracking',
    done: false,
    application: { sha1: '0'.repeat(40), length: 1200 },
    credentialsAvailable: false,
    pendingTasks: [{ formNumber: '5002', formName: 'W-9', action: 'to send' }],
    waitingDocuments: [],
    documents: [
      {
        formNumber: '5002',
        formName: 'W-9',
        action: 'to send',
        state: 'requested',
        provided: false,
        requiredForApproval: true,
      },
    ],
    corrections: [],
    transitions: [],
    runs: 1,
  },
  events: {
    cursor: '1.1',
    events: [
      {
        cursor: '1.1',
        event: {
          id: 'evt-1',
          type: 'application.tracking',
          csid: 'CSID-1',
          externalId: 'today',
          from: 'creating',
          to: 'tracking',
          at: '2026-01-02T03:04:05.000Z',
          seq: 1,
          data: {},
        },
      },
    ],
  },
};

/** Answers the fixtures: reference `today` as they are, `future` as a newer server would. */
async function fixtureServer(): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const match = /^\/v1\/applications\/(today|future)(\/events)?(\?.*)?$/.exec(request.url ?? '');
    if (!match) return void response.writeHead(404, { 'content-type': 'application/problem+json' }).end('{}');
    const future = match[1] === 'future';
    const body = match[2]
      ? future
        ? futureEventPage(today.events)
        : today.events
      : future
        ? futureApplication({ ...today.application, externalId: 'future' })
        : today.application;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('contract: the generated Java client', function () {
  this.timeout(120_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let lib: string;
  let fixtures: Awaited<ReturnType<typeof fixtureServer>>;
  let compiled: Promise<void> | undefined;
  const classes = () => join(work.dir, 'classes');

  before(async function () {
    // The first run fetches the generator and the client's dependencies (Maven); later runs find them cached.
    this.timeout(900_000);
    work = await workDir('java');
    await generateClient('java', work.spec, join(work.dir, 'java'));
    const pom = await readFile(join(work.dir, 'java', 'pom.xml'), 'utf8');
    [lib, fixtures] = await Promise.all([
      timed('java dependencies', () => javaClientDependencies(pom)),
      fixtureServer(),
    ]);
  });

  after(async function () {
    await fixtures?.close();
    await work?.remove();
  });

  /** Compiles the client's sources and ContractRead.java with javac (once). */
  const compile = () =>
    (compiled ??= (async () => {
      await compileJava({
        client: join(work.dir, 'java'),
        programs: [join(REPO, 'test', 'e2e', 'contract', 'ContractRead.java')],
        lib,
        classes: classes(),
        what: 'the generated client',
      });
    })());

  const read = async (reference: string) => {
    await compile();
    return printed(
      await timed(`java read ${reference}`, () =>
        sh('java', [
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          '-cp',
          `${classes()}:${lib}/*`,
          'ContractRead',
          fixtures.base,
          reference,
        ]),
      ),
    );
  };

  it('compiles (javac, the dependencies of its pom.xml)', async function () {
    await compile();
  });

  it("reads today's answers", async function () {
    const seen = await read('today');
    assert.deepEqual(seen, {
      application: { state: 'tracking', externalId: 'today', done: false },
      events: [{ type: 'application.tracking', to: 'tracking' }],
    });
  });

  it("reads a newer server's answers: an unknown field, a new lifecycle state and a new event type", async function () {
    const seen = await read('future');
    assert.equal(seen.applicationError, undefined, String(seen.applicationError));
    assert.equal(seen.eventsError, undefined, String(seen.eventsError));
    assert.deepEqual(seen.application, { state: FUTURE.state, externalId: 'future', done: false });
    assert.deepEqual(seen.events, [
      { type: 'application.tracking', to: 'tracking' },
      { type: FUTURE.eventType, to: FUTURE.state },
    ]);
  });
});
