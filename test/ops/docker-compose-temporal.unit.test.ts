import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_SERVER_VERSION } from '../../harness/temporal-server-binaries';
import { isPostgresImage, isTemporalAdminToolsImage, loadCompose, root, type Service } from '../support/compose-model';

/**
 * docker-compose.yml's Temporal side, as Temporal's own compose samples run it: the server image
 * (not the deprecated auto-setup) at the version the tests run, its databases set up by a one-shot
 * temporal-sql-tool service the server waits for, the namespace registered before `migrate`, and
 * PostgreSQL with pgvector. No Docker engine runs here, so the one-shot scripts run under /bin/sh
 * with stand-ins for Temporal's tools that record how they were called.
 */
describe("docker-compose.yml's Temporal and PostgreSQL", () => {
  let services: Map<string, Service>;
  let work: string;
  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-temporal-'));
    services = loadCompose().services;
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  const only = (what: string, matches: (s: Service) => boolean): Service => {
    const found = [...services.values()].filter(matches);
    assert.equal(found.length, 1, `one service ${what} (found: ${found.map((s) => s.name).join(', ') || 'none'})`);
    return found[0]!;
  };
  const theServer = () => only('runs temporalio/server', (s) => /^(docker\.io\/)?temporalio\/server:/.test(s.image ?? ''));
  const theMigrator = () => only('runs `migrate`', (s) => s.command?.[0] === 'migrate');

  /** The one-shot services `waiter` waits for with service_completed_successfully. */
  const completedBefore = (waiter: Service) =>
    waiter.dependsOn.filter((d) => d.condition === 'service_completed_successfully').map((d) => services.get(d.service)).filter((s): s is Service => s !== undefined);

  /** Runs a service's entrypoint and command with `tools` (name → sh script) first on PATH; returns its exit code and the tools' log. */
  function runOneShot(s: Service, tools: Record<string, string>): { status: number | null; calls: string[]; output: string } {
    const dir = fs.mkdtempSync(path.join(work, `${s.name}-`));
    for (const [name, body] of Object.entries(tools)) fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    const entrypoint = Array.isArray(s.raw.entrypoint) ? s.raw.entrypoint.map(String) : [];
    const argv = [...entrypoint, ...(s.command ?? [])];
    assert.ok(argv.length > 0, `service ${s.name} has no entrypoint or command`);
    const log = path.join(dir, 'calls.log');
    const run = spawnSync(argv[0]!, argv.slice(1), { env: { ...s.env, PATH: `${dir}:/usr/bin:/bin`, TOOL_LOG: log }, encoding: 'utf8', timeout: 20_000 });
    const calls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
    return { status: run.status, calls, output: `${run.stdout}${run.stderr}` };
  }

  it("runs Temporal's server and admin-tools images at the tests' server version, and no auto-setup", () => {
    const problems: string[] = [];
    for (const s of services.values()) {
      if (/^(docker\.io\/)?temporalio\/auto-setup(:|@|$)/.test(s.image ?? '')) problems.push(`service ${s.name} runs ${s.image}: auto-setup is deprecated`);
      const temporalImage = /^(?:docker\.io\/)?temporalio\/(server|admin-tools):([^@]+)/.exec(s.image ?? '');
      if (temporalImage && temporalImage[2] !== TEMPORAL_SERVER_VERSION && !temporalImage[2]!.startsWith(`${TEMPORAL_SERVER_VERSION}-`)) {
        problems.push(`service ${s.name} runs ${s.image}; the tests run Temporal server ${TEMPORAL_SERVER_VERSION} (harness/temporal-server-binaries.ts)`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('creates both databases and brings their schemas up to date with temporal-sql-tool, in a one-shot the server waits for', () => {
    const server = theServer();
    const setups = completedBefore(server).filter((s) => isTemporalAdminToolsImage(s.image));
    assert.equal(setups.length, 1, `service ${server.name} waits (service_completed_successfully) for one temporalio/admin-tools service`);
    const setup = setups[0]!;
    assert.ok(setup.restart === undefined || setup.restart === 'no', `service ${setup.name} is a one-shot (restart: ${setup.restart})`);
    const tool = 'echo "$SQL_PLUGIN $SQL_HOST:$SQL_PORT $SQL_USER:$SQL_PASSWORD $*" >> "$TOOL_LOG"';
    const { status, calls, output } = runOneShot(setup, { 'temporal-sql-tool': tool });
    assert.equal(status, 0, output);

    // The server's own settings (the image's template defaults where unset) say where it looks.
    const target = `${server.env.DB} ${server.env.POSTGRES_SEEDS}:${server.env.DB_PORT ?? '5432'} ${server.env.POSTGRES_USER}:${server.env.POSTGRES_PWD}`;
    for (const call of calls) assert.ok(call.startsWith(`${target} `), `temporal-sql-tool called as \`${call}\`; the server reads ${target}`);
    const steps = (db: string) => calls.map((c) => c.slice(target.length + 1)).filter((c) => c.startsWith(`--db ${db} `)).map((c) => c.slice(`--db ${db} `.length));
    assert.deepEqual(steps(server.env.DBNAME ?? 'temporal'), ['create', 'setup-schema -v 0.0', 'update-schema -s postgresql/v12/temporal']);
    assert.deepEqual(steps(server.env.VISIBILITY_DBNAME ?? 'temporal_visibility'), ['create', 'setup-schema -v 0.0', 'update-schema -s postgresql/v12/visibility']);
  });

  it('registers the namespace the app uses before `migrate` runs, and gives up after a bounded wait', () => {
    const server = theServer();
    const migrate = theMigrator();
    const registrars = completedBefore(migrate).filter((s) => isTemporalAdminToolsImage(s.image));
    assert.equal(registrars.length, 1, 'migrate waits (service_completed_successfully) for one temporalio/admin-tools service');
    const registrar = registrars[0]!;
    assert.ok(registrar.dependsOn.some((d) => d.service === server.name && d.condition === 'service_healthy'), `${registrar.name} starts once ${server.name} is healthy`);

    // A new cluster: the namespace is missing until created, then answers.
    const temporal = [
      'echo "$*" >> "$TOOL_LOG"',
      'case "$*" in',
      '  *"namespace describe"*) [ -f "$TOOL_LOG.created" ] ;;',
      '  *"namespace create"*) touch "$TOOL_LOG.created" ;;',
      '  *"search-attribute list"*) [ -f "$TOOL_LOG.created" ] ;;',
      '  *) exit 2 ;;',
      'esac',
    ].join('\n');
    const created = runOneShot(registrar, { temporal, sleep: 'exit 0' });
    assert.equal(created.status, 0, created.output);
    const create = created.calls.filter((c) => c.includes('namespace create'));
    assert.equal(create.length, 1, created.calls.join('\n'));
    assert.match(create[0]!, new RegExp(`--namespace ${migrate.env.TEMPORAL_NAMESPACE}( |$)`));
    assert.match(create[0]!, new RegExp(`--address ${migrate.env.TEMPORAL_ADDRESS}( |$)`));

    // A server that never answers: the service fails (and migrate does not start) after its tries.
    const never = runOneShot(registrar, { temporal: 'echo "$*" >> "$TOOL_LOG"; exit 1', sleep: 'exit 0' });
    assert.notEqual(never.status, 0);
    const tries = never.calls.filter((c) => c.includes('search-attribute list')).length;
    assert.ok(tries >= 5 && tries <= 60, `${tries} tries`);
  });

  it('runs PostgreSQL with pgvector, so knowledge search takes the indexed path', () => {
    const host = new URL(theMigrator().env.DATABASE_URL ?? '').hostname;
    const pg = services.get(host);
    assert.ok(pg && isPostgresImage(pg.image), `DATABASE_URL points at ${host}, a PostgreSQL service`);
    assert.match(pg.image ?? '', /^(docker\.io\/)?pgvector\/pgvector:/);
  });

  it('mounts only files that are in the repository', () => {
    const missing: string[] = [];
    for (const s of services.values()) {
      for (const volume of Array.isArray(s.raw.volumes) ? s.raw.volumes.map(String) : []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.') && !fs.existsSync(path.resolve(root, source))) missing.push(`${s.name}: ${source}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
