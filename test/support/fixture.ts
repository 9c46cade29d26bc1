import type { Config } from '../../config/env';
import type { ClusterHandle } from '../../harness/temporal-cluster-launcher';

/** What the global fixture started for this test run; read by tests through `fixture()`. */
export interface TestFixture {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiURL?: string;
  temporalCliPath: string;
  /** Config the in-process API and worker use (task queues carry a per-run prefix). */
  config: Config;
  /** Under TEST_TEMPORAL=cluster: the cluster's service processes, for tests that break one. */
  temporalCluster?: ClusterHandle;
}

let current: TestFixture | undefined;

export function setFixture(f: TestFixture | undefined): void {
  current = f;
}

export function fixture(): TestFixture {
  if (!current) {
    throw new Error(
      'the global test fixture is not running: run tests through mocha with .mocharc.json; ' +
        'unit tests (*.unit.test.ts) run without it, so a test that needs PostgreSQL or Temporal is named *.test.ts',
    );
  }
  return current;
}
