/**
 * Tracing as the standard OTEL_* variables configure it (runtime/tracing.ts): a process with an OTLP endpoint
 * exports its spans over the protocol the environment names (http/protobuf, the default, http/json or grpc)
 * to a real receiver here, and says which service it is; an exporter or protocol the SDK does not act on
 * stops start-up with the variable named. Each traced process is a child of its own: tracing registers
 * itself for the whole process.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ConfigurationError } from '../../../runtime/config-error.js';
import { tracingExporter } from '../../../runtime/tracing.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** A receiver of OTLP over HTTP/1.1 (http/protobuf, http/json) or cleartext HTTP/2 (grpc): it keeps every request. */
async function startReceiver(http2: boolean) {
  const received: Received[] = [];
  const keep = (path: string, contentType: string, chunks: Buffer[]) =>
    received.push({ path, contentType, body: Buffer.concat(chunks) });
  const server = http2
    ? createHttp2Server().on('stream', (stream, headers) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          keep(String(headers[':path']), String(headers['content-type']), chunks);
          // A gRPC answer: an empty message, then the status in trailers.
          stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
          stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
          stream.end(Buffer.alloc(5));
        });
      })
    : createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          keep(request.url ?? '', request.headers['content-type'] ?? '', chunks);
          response.writeHead(200, { 'content-type': request.headers['content-type'] }).end();
        });
      });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A process that starts tracing as its environment says, ends one span and shuts tracing down. */
async function tracedProcess(otel: Record<string, string>): Promise<void> {
  const tracing = pathToFileURL(`${ROOT}runtime/tracing.ts`).href;
  const script = `
    import { trace } from '@opentelemetry/api';
    import { startTracing } from '${tracing}';
    const tracing = await startTracing('tracing-test');
    trace.getTracer('test').startActiveSpan('probe span', (span) => span.end());
    await tracing.shutdown();`;
  const inherited = Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'));
  const env = { ...Object.fromEntries(inherited), ...otel };
  await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env });
}

describe('tracing: the OTEL_* environment, through the OpenTelemetry Node SDK', function () {
  this.timeout(60_000);

  for (const [protocol, contentType, path] of [
    ['http/protobuf', 'application/x-protobuf', '/v1/traces'],
    [undefined, 'application/x-protobuf', '/v1/traces'],
    ['http/json', 'application/json', '/v1/traces'],
    ['grpc', 'application/grpc', '/opentelemetry.proto.collector.trace.v1.TraceService/Export'],
  ] as const) {
    it(`exports spans over ${protocol ?? 'the default protocol (http/protobuf)'}`, async function () {
      const receiver = await startReceiver(protocol === 'grpc');
      try {
        await tracedProcess({
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          ...(protocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: protocol } : {}),
        });
        const traces = receiver.received.filter((request) => request.path === path);
        assert.equal(traces.length, 1, JSON.stringify(receiver.received.map((request) => request.path)));
        assert.equal(traces[0]!.contentType, contentType);
        // Protobuf carries strings as their UTF-8 bytes; JSON as text.
        assert.ok(traces[0]!.body.includes('probe span'), 'the span');
        assert.ok(traces[0]!.body.includes('tracing-test'), 'the service name');
      } finally {
        await receiver.close();
      }
    });
  }

  it('is off unless the environment asks for it; an exporter or protocol the SDK does not act on is named', function () {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    assert.equal(tracingExporter({}), undefined);
    assert.equal(tracingExporter(endpoint), 'otlp');
    assert.equal(tracingExporter({ OTEL_TRACES_EXPORTER: 'console' }), 'console');
    assert.equal(tracingExporter({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), undefined);
    assert.equal(tracingExporter({ ...endpoint, OTEL_SDK_DISABLED: 'true' }), undefined);
    for (const protocol of ['http/protobuf', 'grpc', 'http/json']) {
      assert.equal(tracingExporter({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol }), 'otlp');
    }
    for (const [env, named] of [
      [{ OTEL_TRACES_EXPORTER: 'jaeger' }, /OTEL_TRACES_EXPORTER=jaeger: jaeger is not one of otlp, console/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }, /OTEL_EXPORTER_OTLP_PROTOCOL=http\/xml/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp' }, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=udp/],
    ] as const) {
      assert.throws(
        () => tracingExporter(env),
        (error: unknown) => error instanceof ConfigurationError && named.test(error.message),
      );
    }
  });
});
