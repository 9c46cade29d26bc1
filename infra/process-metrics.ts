import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * Node's process metrics on `registry`, once: under `start` the API and the worker share one
 * registry (so the API's `/metrics` shows the worker's series), and a second collect would throw.
 */
export function collectProcessMetrics(registry: Registry): void {
  if (!registry.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics({ register: registry });
}
