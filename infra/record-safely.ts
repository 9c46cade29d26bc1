/**
 * Recording a metric is bookkeeping: it never fails the request or turn it describes (a label
 * mistake in prom-client throws). A metric that cannot be recorded is lost, nothing else.
 */
export function recordSafely(record: () => void): void {
  try {
    record();
  } catch {
    // lost on purpose: see above
  }
}
