import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config/env';
import { loggerFor } from './logging';
import type * as Admin from './commands/admin';
import type * as Migrate from './commands/migrate';
import type * as Serve from './commands/serve';
import type * as Start from './commands/start';
import type * as TemporalCli from './commands/temporal-cli';

// Each command's module is loaded when that command runs, not at start: `api` then loads no
// worker, activity or embedded-database code, and `worker` no HTTP server (docs/operations.md: Start-up).
let adminModule: typeof Admin | undefined;
const admin = () => (adminModule ??= require('./commands/admin') as typeof Admin);
const migrate = () => require('./commands/migrate') as typeof Migrate;
const serve = () => require('./commands/serve') as typeof Serve;
const start = () => require('./commands/start') as typeof Start;
const temporalCli = () => require('./commands/temporal-cli') as typeof TemporalCli;

/** Operator-facing lines go to stderr so that `--json` output on stdout stays machine-readable. */
const say = (line: string) => process.stderr.write(`${line}\n`);
const print = (line: string) => process.stdout.write(`${line}\n`);

function fail(e: unknown): never {
  if (e instanceof ConfigError) {
    say(`configuration error: ${e.message}`);
    process.exit(2);
  }
  if (adminModule && e instanceof adminModule.CliError) {
    say(`error: ${e.message}`);
    process.exit(e.exitCode);
  }
  say(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
}

/** Wraps an action: config is loaded (and validated) only when a command runs. */
function action<A extends unknown[]>(fn: (config: ReturnType<typeof loadConfig>, ...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(loadConfig(), ...args);
    } catch (e) {
      fail(e);
    }
  };
}

/** Admin verbs print their answer and exit (the embedded database they may have started stops). */
function adminAction<A extends unknown[]>(fn: (config: ReturnType<typeof loadConfig>, ...args: A) => Promise<void>) {
  return async (...args: A) => {
    await action(fn)(...args);
    process.exit(0);
  };
}

/** The package's version: package.json is one folder up from the sources, two from build/cli/. */
function packageVersion(): string {
  for (const up of ['..', '../..']) {
    try {
      return (JSON.parse(readFileSync(path.join(__dirname, up, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // not there: try the next level
    }
  }
  return 'unknown';
}
const version = packageVersion();

const json = '--json';
const jsonHelp = 'print the answer as JSON on stdout (for scripts)';

const program = new Command('hosted-agents')
  .description('Hosted Agents: the service (start, api, worker, migrate) and its admin verbs')
  .version(version, '-v, --version', 'print the version and exit')
  .helpOption('-h, --help', 'show help for a command')
  .showHelpAfterError()
  // Usage errors (unknown command or option, missing argument) exit 2, as docs/operations.md (Admin CLI) says;
  // --help and --version exit 0.
  .exitOverride((err) => process.exit(err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2));

program.command('start').description('everything in one process tree: embedded Postgres and Temporal unless configured, migrations, worker, API')
  .action(action((config) => start().startCommand(config, loggerFor(config, 'start'), say)));
program.command('api').description('the HTTP API (needs DATABASE_URL and TEMPORAL_ADDRESS)')
  .action(action((config) => serve().apiCommand(config, loggerFor(config, 'service'), say)));
program.command('worker').description('a worker on the turns and ops task queues (needs DATABASE_URL and TEMPORAL_ADDRESS)')
  .action(action((config) => serve().workerCommand(config, loggerFor(config, 'service'), say)));
program.command('migrate').description('apply database migrations; register search attributes when TEMPORAL_ADDRESS is set')
  .action(adminAction((config) => migrate().migrateCommand(config, say)));
program.command('temporal-cli').description('find, download or build the Temporal CLI (dev server) ahead of time; prints its path')
  .action(adminAction((config) => temporalCli().temporalCliCommand(config, say, print)));

const workspace = program.command('workspace').description('manage workspaces (DATABASE_URL, else the embedded database in DATA_DIR)');
workspace.command('create').description('create a workspace and its first API key (shown once); --owner also makes its owner and a one-time sign-in link')
  .requiredOption('--name <name>', 'the workspace name').requiredOption('--credits <n>', 'starting credit balance (a number, may be fractional)')
  .option('--owner <email>', "the owner's e-mail: a member with the owner role, and a one-time sign-in link printed for them").option(json, jsonHelp)
  .action(adminAction((config, opts: { name: string; credits: string; owner?: string; json?: boolean }) => admin().workspaceCreate(config, say, print, opts)));
workspace.command('list').description('every workspace with its balance').option(json, jsonHelp)
  .action(adminAction((config, opts: { json?: boolean }) => admin().workspaceList(config, say, print, opts)));
workspace.command('credits').description("change a workspace's balance")
  .argument('<id>', 'workspace id (ws_…)').requiredOption('--add <n>', 'credits to add (negative to remove)').option(json, jsonHelp)
  .action(adminAction((config, id: string, opts: { add: string; json?: boolean }) => admin().workspaceCredits(config, say, print, id, opts)));
workspace.command('diagnostics').description('allow or deny a workspace the diagnostics probe (POST /v1/diagnostics/round-trip)')
  .argument('<id>', 'workspace id (ws_…)').option('--allow', 'let its keys run the probe').option('--deny', 'the probe answers 404 to its keys (the default)').option(json, jsonHelp)
  .action(adminAction((config, id: string, opts: { allow?: boolean; deny?: boolean; json?: boolean }) => admin().workspaceDiagnostics(config, say, print, id, opts)));

const key = program.command('key').description('manage API keys (stored as SHA-256; a key is shown once)');
key.command('create').description('a new API key for a workspace, shown once')
  .requiredOption('--workspace <id>', 'workspace id (ws_…)')
  .option('--role <role>', 'what the key may do: owner, builder, reviewer or viewer', 'owner')
  .option('--name <name>', 'a name to tell the key apart', '')
  .option(json, jsonHelp)
  .action(adminAction((config, opts: { workspace: string; role: string; name: string; json?: boolean }) => admin().keyCreate(config, say, print, opts)));
key.command('list').description("a workspace's keys: ids, prefixes, creation and revocation times, never key text")
  .requiredOption('--workspace <id>', 'workspace id (ws_…)').option(json, jsonHelp)
  .action(adminAction((config, opts: { workspace: string; json?: boolean }) => admin().keyList(config, say, print, opts)));
key.command('revoke').description('revoke a key: it answers 401 from then on')
  .argument('<keyId>', 'key id (key_…), from key list').option(json, jsonHelp)
  .action(adminAction((config, id: string, opts: { json?: boolean }) => admin().keyRevoke(config, say, print, id, opts)));

const secrets = program.command('secrets').description('stored secret values (SECRETS_KEY)');
secrets.command('rekey').description('re-encrypt every stored sealed value under the current (first) key of SECRETS_KEY; resumable, skips values already under it')
  .option('--batch-size <n>', 'values per batch', '500').option('--limit <n>', 'stop after re-encrypting this many values (run again to go on)').option(json, jsonHelp)
  .action(adminAction((config, opts: { batchSize: string; limit?: string; json?: boolean }) => admin().secretsRekey(config, say, print, opts)));

program.parseAsync(process.argv).catch(fail);
