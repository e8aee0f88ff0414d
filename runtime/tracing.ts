/**
 * Tracing with OpenTelemetry, off unless the standard OTEL variables ask for it: `OTEL_TRACES_EXPORTER`
 * (otlp, console or zipkin; `none` first turns it off) or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` turns it off. Once on, the OpenTelemetry
 * Node SDK reads the environment itself: the OTLP protocol (`OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL`:
 * http/protobuf by default, grpc or http/json), endpoints, headers, timeouts, sampler, propagators, batch
 * settings, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The SDK is imported only when tracing is
 * on: a process without it loads none of it.
 */
import type { ProxyTracerProvider } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from './config-error.js';

export interface Tracing {
  /** Where the spans go: the processor the SDK's workflow span sink needs too. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered and stops (a short-lived process must call it before it exits). */
  shutdown(): Promise<void>;
}

/** The values the SDK acts on (it only warns about others, and then exports nothing or falls back). */
const EXPORTERS = ['otlp', 'console', 'zipkin', 'none'];
const PROTOCOLS = ['http/protobuf', 'grpc', 'http/json'];

/** The exporters the environment asks for (`OTEL_TRACES_EXPORTER`, `otlp` by default), or undefined when tracing is off. */
export function tracingExporter(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim()) ?? [];
  const unknown = named.find((name) => name !== '' && !EXPORTERS.includes(name));
  if (unknown !== undefined) {
    throw new ConfigurationError(
      `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: ${unknown} is not one of ${EXPORTERS.join(', ')}`,
    );
  }
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[variable]?.trim();
    if (protocol && !PROTOCOLS.includes(protocol)) {
      throw new ConfigurationError(`${variable}=${protocol}: the protocols are ${PROTOCOLS.join(', ')}`);
    }
  }
  if (named[0] === 'none') return undefined;
  if (named.some(Boolean)) return named.filter(Boolean).join(',');
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : undefined;
}

let started: Promise<Tracing> | undefined;

/**
 * Starts tracing for this process, once (later calls answer the same), as the environment of the process
 * configures it: the SDK's tracer provider with its exporters, propagators and async context across
 * awaits. `defaultServiceName` names the service unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES`
 * do; of the resource detectors only the environment's runs unless `OTEL_NODE_RESOURCE_DETECTORS` names
 * others (the process detector would export the command line). Undefined when tracing is off.
 */
export function startTracing(defaultServiceName: string): Promise<Tracing> | undefined {
  if (!tracingExporter(process.env)) return undefined;
  started ??= (async () => {
    const { api, NodeSDK, resources } = await import('@opentelemetry/sdk-node');
    const detectors = process.env.OTEL_NODE_RESOURCE_DETECTORS
      ? {}
      : { resourceDetectors: [resources.envDetectorSync] };
    const sdk = new NodeSDK({ resource: new resources.Resource({ 'service.name': defaultServiceName }), ...detectors });
    sdk.start();
    const provider = (api.trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as BasicTracerProvider;
    return {
      spanProcessor: provider.getActiveSpanProcessor(),
      resource: provider.resource,
      shutdown: () => sdk.shutdown(),
    };
  })();
  return started;
}
