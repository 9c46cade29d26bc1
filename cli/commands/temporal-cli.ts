import type { Config } from '../../config/env';
import { locateTemporalCli } from '../../infra/temporal-cli';
import type { Say } from '../backing-services';

/** `hosted-agents temporal-cli`: finds (or downloads, or builds) the Temporal CLI and prints its path. */
export async function temporalCliCommand(config: Config, say: Say, print: Say): Promise<void> {
  print(await locateTemporalCli({ explicitPath: config.TEMPORAL_CLI_PATH, allowDownload: config.TEMPORAL_CLI_DOWNLOAD, log: say, env: config.processEnv }));
}
