/**
 * Prometheus's configuration, one function for compose (deploy/prometheus/prometheus.yml: targets found
 * by Docker's DNS) and `npm run cluster` (the same jobs, intervals and rules on this machine's ports).
 */
export interface ScrapeTargets {
  /**
   * Engine workers' metrics endpoints (`host:port`), `dns` for compose's `worker` replicas, or a file of
   * targets Prometheus watches (file_sd: `npm run cluster`, whose workers come and go on new ports).
   */
  workers: string[] | 'dns' | { file: string };
  /** The onboarding API replicas' metrics listeners (`ECA_METRICS_ADDRESS`), `dns` for compose's `api` replicas. */
  apis?: string[] | 'dns';
  /** The Temporal server's (or each Temporal service's) metrics endpoints. */
  temporal: string[];
  /** Any further engine endpoint, such as the codec server's (job `eca-service`). */
  services?: string[];
}

export const SCRAPE_INTERVAL = '15s';

export function prometheusConfig(
  targets: ScrapeTargets,
  options: { ruleFiles: string[]; interval?: string },
): Record<string, unknown> {
  const interval = options.interval ?? SCRAPE_INTERVAL;
  return {
    global: { scrape_interval: interval, evaluation_interval: interval },
    rule_files: options.ruleFiles,
    scrape_configs: [
      {
        job_name: 'eca-worker',
        ...discovery('worker', targets.workers, interval),
      },
      ...(targets.apis?.length ? [{ job_name: 'eca-api', ...discovery('api', targets.apis, interval) }] : []),
      { job_name: 'temporal-server', static_configs: [{ targets: targets.temporal }] },
      ...(targets.services?.length
        ? [{ job_name: 'eca-service', static_configs: [{ targets: targets.services }] }]
        : []),
    ],
  };
}

/** Where a job's targets come from: compose's service by DNS, a list, or a file Prometheus watches. */
function discovery(service: string, targets: ScrapeTargets['workers'], interval: string): Record<string, unknown> {
  // One A record per container: `docker compose up --scale worker=N` needs no change here.
  if (targets === 'dns')
    return { dns_sd_configs: [{ names: [service], type: 'A', port: 9464, refresh_interval: interval }] };
  if (Array.isArray(targets)) return { static_configs: [{ targets }] };
  return { file_sd_configs: [{ files: [targets.file], refresh_interval: interval }] };
}
