/**
 * The onboarding API's Prometheus metrics, served on a listener of their own (`ECA_METRICS_ADDRESS`, as
 * the workers'), never on the API's port: the gateway that publishes the API does not publish them.
 *
 * - `eca_api_requests{csid,route,method,status,code}`        answered requests: the route's pattern (never
 *   the path's ids), the HTTP status and the problem's `code` (empty for a success); `csid` is the API key's
 *   firm, empty before a key is checked; a request whose caller closed the connection before its answer is
 *   counted once, with status `499`
 * - `eca_api_request_duration_ms{route,method}`             time to answer (histogram)
 * - `eca_api_requests_in_flight`                             requests being answered (gauge)
 * - `process_*`, `nodejs_*`                                   the process's CPU, memory, event loop lag (prom-client)
 *
 * The alert rules on these (`EcaApiDown`, `EcaApiErrors`) and the dashboard's API panels are in
 * deploy/prometheus/ and deploy/grafana/. Counters carry no `_total` suffix, as the workers' (the SDK's default).
 */
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ApiMetrics {
  readonly registry: Registry;
  readonly requests: Counter<'csid' | 'route' | 'method' | 'status' | 'code'>;
  readonly duration: Histogram<'route' | 'method'>;
  readonly inFlight: Gauge;
}

/** Buckets in ms: a read answers in milliseconds, a start in tens of them, a timed-out call in 30 s. */
const DURATION_BUCKETS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000];

/** A registry of the API's metrics, with the process's own (CPU, memory, event loop). */
export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'eca_api_requests',
      help: 'Requests answered by the onboarding API, by firm, route pattern, method, status and problem code',
      labelNames: ['csid', 'route', 'method', 'status', 'code'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'eca_api_request_duration_ms',
      help: 'Time the onboarding API took to answer, by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'eca_api_requests_in_flight',
      help: 'Requests the onboarding API is answering',
      registers: [registry],
    }),
  };
}

/** Counts and times every answer that goes through the hooks: a route's, the not-found handler's. */
export function installMetrics(app: FastifyInstance, metrics: ApiMetrics): void {
  // When each request began; a request leaves the map when it is counted, once, whichever hook comes first.
  const began = new WeakMap<FastifyRequest, number>();
  const count = (request: FastifyRequest, status: string, code: string) => {
    const at = began.get(request);
    if (at === undefined) return;
    began.delete(request);
    metrics.inFlight.dec();
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.requests.inc({ csid: request.principal?.csid ?? '', route, method, status, code });
    metrics.duration.observe({ route, method }, performance.now() - at);
  };
  app.addHook('onRequest', (request, reply, done) => {
    began.set(request, performance.now());
    metrics.inFlight.inc();
    // A caller that closes its connection before the answer is written gets none, and onResponse may
    // never run (fastify's onRequestAbort runs only while a body is still coming in).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) count(request, '499', '');
    });
    done();
  });
  app.addHook('onResponse', async (request, reply) => {
    count(request, String(reply.statusCode), reply.problemCode ?? '');
  });
}

/** Counts an answer the router gave before any hook (a malformed URL): no route, no firm, no duration. */
export function countUnrouted(metrics: ApiMetrics | undefined, method: string, status: number, code: string): void {
  metrics?.requests.inc({ csid: '', route: 'unmatched', method, status: String(status), code });
}

/** `host:port` of a metrics listener, checked. */
export function parseMetricsAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s]+)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new RangeError(`"${address}" is not host:port (such as 0.0.0.0:9464)`);
  return { host: match[1] ?? match[2]!, port };
}

/** GET /metrics in Prometheus's text format on an address of its own; the answer is the listener's URL. */
export async function serveMetrics(
  metrics: ApiMetrics,
  address: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { host, port } = parseMetricsAddress(address);
  const server = Fastify({ logger: false });
  server.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  const url = await server.listen({ host, port });
  return { url, close: () => server.close() };
}
