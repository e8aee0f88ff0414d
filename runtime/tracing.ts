/**
 * Tracing with OpenTelemetry, off unless the standard OTEL variables ask for it:
 * `OTEL_TRACES_EXPORTER=otlp` (or `console`), or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it
 * off. Spans go out over OTLP/HTTP with JSON bodies (`http/json`, the only protocol supported here),
 * named by `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The SDK is imported only when tracing is
 * on: a process without it loads none of it.
 */
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from './config-error.js';

export interface Tracing {
  /** Where the spans go: the processor the SDK's workflow span sink needs too. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered and stops (a short-lived process must call it before it exits). */
  shutdown(): Promise<void>;
}

type Exporter = 'otlp' | 'console';

/** The exporter the environment asks for, or undefined when tracing is off. */
export function tracingExporter(env: NodeJS.ProcessEnv = process.env): Exporter | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined;
  const named = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (named === 'none') return undefined;
  if (named === 'console') return 'console';
  if (named !== undefined && named !== '' && named !== 'otlp') {
    throw new ConfigurationError(`OTEL_TRACES_EXPORTER=${named}: use otlp, console or none`);
  }
  if (named === 'otlp' || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
    if (protocol !== undefined && protocol !== '' && protocol !== 'http/json') {
      throw new ConfigurationError(
        `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: the engine exports OTLP over HTTP as JSON (http/json) only`,
      );
    }
    return 'otlp';
  }
  return undefined;
}

let started: Promise<Tracing> | undefined;

/**
 * Starts tracing for this process, once (later calls answer the same): a tracer provider with the
 * exporter the environment names, W3C trace context propagation (what the Temporal interceptors put in
 * headers) and async context across awaits. Undefined when tracing is off.
 */
export function startTracing(
  defaultServiceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing> | undefined {
  const exporterKind = tracingExporter(env);
  if (!exporterKind) return undefined;
  started ??= (async () => {
    const [
      { BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter },
      resources,
      { AsyncLocalStorageContextManager },
    ] = await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
    ]);
    const exporter =
      exporterKind === 'console'
        ? new ConsoleSpanExporter()
        : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
    const resource = new resources.Resource({ 'service.name': env.OTEL_SERVICE_NAME || defaultServiceName }).merge(
      resources.detectResourcesSync({ detectors: [resources.envDetectorSync] }),
    );
    const spanProcessor = new BatchSpanProcessor(exporter);
    const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
    provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
    return { spanProcessor, resource, shutdown: () => provider.shutdown() };
  })();
  return started;
}
