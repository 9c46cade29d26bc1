import { locateTemporalCli } from '../infra/temporal-cli';

/**
 * The Temporal CLI (dev server) the tests and the benches start: TEMPORAL_CLI_PATH when set, else
 * the cached or downloaded one; TEMPORAL_CLI_DOWNLOAD=false forbids the download (CI builds it).
 */
export function temporalCliFromEnv(log: (line: string) => void): Promise<string> {
  return locateTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH, allowDownload: process.env.TEMPORAL_CLI_DOWNLOAD !== 'false', log, env: process.env });
}
