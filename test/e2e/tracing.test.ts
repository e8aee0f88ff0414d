/**
 * Tracing end to end, every part a real process: an OTLP/HTTP receiver here collects what the `eca` CLI
 * (client) and an engine worker export when OTEL_EXPORTER_OTLP_ENDPOINT is set. One application is
 * started with `eca apply` and followed to Open; its trace must run from the CLI's StartWorkflow span
 * through the workflow and its activities to the brokerage HTTP calls (`eca create`), parent by parent,
 * and no span may carry the applicant's personal data.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SimulatorProcess, startWorkerProcess } from '../../scripts/processes.js';
import type { Child } from '../../scripts/processes.js';
import { applicant, personalFields, personalXml, strings } from '../support/history-privacy.js';
import { cliEnv, devServerEnv } from '../support/servers.js';
import { seedEmbedded } from '../support/database-template.js';

const ECA = fileURLToPath(new URL('../../bin/eca.js', import.meta.url));
/** The receiver here reads JSON bodies (the SDK's default is http/protobuf: test/e2e/runtime/tracing.test.ts). */
const OTLP_JSON = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  service: string;
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Omit<Span, 'service'>[] }>;
  }>;
}

/** An OTLP/HTTP receiver (JSON bodies), as a collector or Jaeger would be: it keeps every span posted. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: Span[] }> {
  const spans: Span[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service =
            resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? []) spans.push({ ...span, service });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

describe('tracing (OpenTelemetry): CLI → workflow → activity → brokerage call, one trace', function () {
  this.timeout(300_000);
  let dev: TestWorkflowEnvironment;
  let sim: SimulatorProcess;
  let worker: Child;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let store: string;
  const taskQueue = `tracing-${randomUUID().slice(0, 8)}`;

  before(async function () {
    receiver = await startReceiver();
    dev = await devServerEnv();
    sim = new SimulatorProcess({ timeScale: 20_000 });
    await sim.start();
    store = await mkdtemp(join(tmpdir(), 'eca-tracing-'));
    await seedEmbedded(join(store, 'database'));
    worker = await startWorkerProcess('traced worker', {
      temporalAddress: dev.address,
      taskQueue,
      simulator: sim,
      // Its database beside the store (scripts/processes.ts `databaseBeside`): inside this test's directory.
      documentStore: join(store, 'documents'),
      env: { ...OTLP_JSON, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' },
    });
  });

  after(async function () {
    await worker?.stop();
    await sim?.stop();
    receiver?.server.close();
    await rm(store, { recursive: true, force: true });
  });

  function eca(args: string[], traced: boolean): Promise<string> {
    const env: NodeJS.ProcessEnv = {
      ...cliEnv({ address: dev.address, csid: sim.csid, taskQueue, store: join(store, 'documents') }),
      ...(traced
        ? { ...OTLP_JSON, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'onboarding-cli' }
        : {}),
    };
    return new Promise((resolve, reject) =>
      execFile(process.execPath, [ECA, ...args], { env }, (error, stdout, stderr) =>
        error ? reject(new Error(`eca ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
      ),
    );
  }

  it('says at start that tracing is on, and joins every span of an application to the trace its start began', async function () {
    assert.match(worker.output, /bundled at start; tracing on \(OpenTelemetry\)/);
    const runId = randomUUID().slice(0, 6);
    const externalId = `happy-traced-${runId}`;
    const person = applicant('traced', runId.replace(/[^0-9a-f]/g, '0'));
    const xml = join(store, 'application.xml');
    await writeFile(xml, personalXml(externalId, person));
    await eca(['apply', xml], true);

    let state = { lifecycleState: '', done: false };
    for (let i = 0; i < 240 && !state.done; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      state = JSON.parse(await eca(['status', externalId, '-o', 'json'], false)) as typeof state;
    }
    assert.equal(state.lifecycleState, 'open');

    const start = receiver.spans.find((span) => span.name === 'StartWorkflow:accountApplication');
    assert.ok(start, `the CLI's start span: ${[...new Set(receiver.spans.map((s) => s.name))].join(', ')}`);
    assert.equal(start.service, 'onboarding-cli');
    // The worker exports in batches (the workflow's spans through the sink, the activities' apart): wait
    // until the workflow's span and the brokerage call's span of this trace have both come in.
    const inTrace = () => receiver.spans.filter((span) => span.traceId === start.traceId);
    const arrived = () =>
      ['RunWorkflow:accountApplication', 'eca create'].every((name) => inTrace().some((span) => span.name === name));
    for (let i = 0; i < 60 && !arrived(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const trace = inTrace();
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const names = new Set(trace.map((span) => span.name));
    for (const name of ['RunWorkflow:accountApplication', 'eca create']) {
      assert.ok(names.has(name), `${name} in the trace: ${[...names].join(', ')}`);
    }
    assert.ok(
      [...names].some((name) => name.startsWith('RunActivity:')),
      [...names].join(', '),
    );

    // eca create ← RunActivity ← StartActivity ← … ← RunWorkflow ← StartWorkflow: one chain of parents.
    const create = trace.find((span) => span.name === 'eca create')!;
    const chain: string[] = [];
    for (
      let span: Span | undefined = create;
      span;
      span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined
    ) {
      chain.push(span.name);
    }
    console.log(`      trace: ${[...chain].reverse().join(' → ')}`);
    assert.equal(chain.at(-1), 'StartWorkflow:accountApplication', `the chain: ${chain.join(' ← ')}`);
    assert.match(chain[1] ?? '', /^RunActivity:/, chain.join(' ← '));
    assert.ok(chain.includes('RunWorkflow:accountApplication'), chain.join(' ← '));
    assert.equal(create.service, 'eca-worker');
    const status = create.attributes?.find((a) => a.key === 'http.response.status_code')?.value;
    assert.deepEqual(status, { intValue: 200 });

    // Nothing of the applicant in any span exported by anyone.
    const exported = strings(receiver.spans);
    for (const field of personalFields(person)) {
      assert.ok(!exported.some((text) => text.includes(field)), `"${field}" is in a span`);
    }
  });
});
