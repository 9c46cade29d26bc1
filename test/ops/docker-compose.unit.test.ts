import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { envSchema } from '../../config/env';
import { root, loadCompose, dockerfilePath, isPostgresImage, isTemporalServerImage, isTemporalUiImage, listeningPorts, problemsReport, finalStage, words, contextCopySources, copies, ignoredBy, transitiveFiles, CLI_ENTRY, REQUIRED_TOP_LEVEL, ALLOWED_CONDITIONS, type Service } from '../support/compose-model';

/**
 * docker-compose.yml and the Dockerfile against the code they run: service references, the
 * start-up order, env var names (config/env.ts), addresses, ports and the image's contents.
 * Everything a `docker compose up` would only reveal after minutes of building and waiting.
 */

describe('docker-compose.yml', () => {
  let services: Map<string, Service>;
  /** Services built from this repository: the hosted-agents roles. */
  let appServices: Service[];
  before(() => {
    services = loadCompose().services;
    appServices = [...services.values()].filter((s) => s.build !== undefined);
  });
  const cliText = fs.readFileSync(path.join(root, 'cli/main.ts'), 'utf8');
  const cliCommands = new Set([...cliText.matchAll(/program\s*\.command\(\s*['"]([\w-]+)['"]/g)].map((m) => m[1]!));
  // NODE_OPTIONS is read by Node itself (the api service sets V8's young generation with it).
  const envKeys = new Set([...Object.keys(envSchema.shape), 'NODE_OPTIONS']);

  /** The CLI command a built service runs: its `command`, else the Dockerfile's CMD. */
  const commandOf = (s: Service): string | undefined => {
    if (s.command) return s.command[0];
    const cmd = finalStage(fs.readFileSync(dockerfilePath(s), 'utf8')).filter((i) => i.keyword === 'CMD').pop();
    return cmd ? words(cmd.args)[0] : undefined;
  };

  it('defines services, each with an image or a build', () => {
    const problems: string[] = [];
    if (services.size === 0) problems.push('no services defined');
    for (const s of services.values()) {
      if (s.image === undefined && s.build === undefined) problems.push(`service ${s.name} has neither image nor build`);
      if (s.image !== undefined && s.build === undefined && !/[:@]/.test(s.image.split('/').pop() ?? '')) {
        problems.push(`service ${s.name}: image ${s.image} has no tag (pin a version)`);
      }
      if (s.image !== undefined && /:latest$/.test(s.image)) problems.push(`service ${s.name}: image ${s.image} is not pinned (latest)`);
    }
    for (const name of ['postgres', 'temporal', 'temporal-ui', 'migrate', 'api', 'worker']) {
      if (!services.has(name)) problems.push(`service ${name} is missing (ARCHITECTURE.md names the whole set)`);
    }
    problemsReport(problems);
  });

  it('builds from a context that has the Dockerfile', () => {
    const problems: string[] = [];
    if (appServices.length === 0) problems.push('no service is built from this repository (build:)');
    for (const s of appServices) {
      const context = path.resolve(root, s.build!.context);
      if (!fs.existsSync(context) || !fs.statSync(context).isDirectory()) {
        problems.push(`service ${s.name}: build context ${s.build!.context} is not a directory`);
      } else if (!fs.existsSync(dockerfilePath(s))) {
        problems.push(`service ${s.name}: ${path.relative(root, dockerfilePath(s))} does not exist in build context ${s.build!.context}`);
      }
    }
    problemsReport(problems);
  });

  it('depends_on names defined services with valid conditions, in an acyclic graph', () => {
    const problems: string[] = [];
    for (const s of services.values()) {
      for (const d of s.dependsOn) {
        const target = services.get(d.service);
        if (!target) {
          problems.push(`service ${s.name} depends_on ${d.service}, which is not a defined service`);
          continue;
        }
        if (d.service === s.name) problems.push(`service ${s.name} depends on itself`);
        if (!ALLOWED_CONDITIONS.has(d.condition)) {
          problems.push(`service ${s.name} depends_on ${d.service} with condition ${d.condition} (allowed: ${[...ALLOWED_CONDITIONS].join(', ')})`);
        }
        if (d.condition === 'service_healthy') {
          const imageHasHealthcheck =
            target.build !== undefined &&
            fs.existsSync(dockerfilePath(target)) &&
            finalStage(fs.readFileSync(dockerfilePath(target), 'utf8')).some((i) => i.keyword === 'HEALTHCHECK' && !/^NONE\b/i.test(i.args));
          const disabled = target.healthcheck?.disable === true;
          if (disabled || (!target.healthcheck && !imageHasHealthcheck)) {
            problems.push(`service ${s.name} waits for ${d.service} to be healthy, but ${d.service} has no healthcheck`);
          }
        }
        if (d.condition === 'service_completed_successfully' && (target.restart === 'always' || target.restart === 'unless-stopped')) {
          problems.push(`service ${s.name} waits for ${d.service} to complete, but ${d.service} has restart: ${target.restart}`);
        }
      }
    }
    // Cycle detection (depth-first; grey = on the current path).
    const state = new Map<string, 'grey' | 'black'>();
    const visit = (name: string, trail: string[]): void => {
      if (state.get(name) === 'black') return;
      if (state.get(name) === 'grey') {
        problems.push(`depends_on cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`);
        return;
      }
      state.set(name, 'grey');
      for (const d of services.get(name)?.dependsOn ?? []) if (services.has(d.service)) visit(d.service, [...trail, name]);
      state.set(name, 'black');
    };
    for (const name of services.keys()) visit(name, []);
    problemsReport(problems);
  });

  it('sets only env vars that config/env.ts reads on the app services, and they parse', () => {
    const problems: string[] = [];
    for (const s of appServices) {
      for (const key of Object.keys(s.env)) {
        if (!envKeys.has(key)) problems.push(`service ${s.name} sets ${key}, which config/env.ts does not read (typo?)`);
      }
      for (const key of ['DATABASE_URL', 'TEMPORAL_ADDRESS']) {
        if (!s.env[key]) problems.push(`service ${s.name} does not set ${key} (hosted-agents ${commandOf(s) ?? ''} needs it)`);
      }
      const parsed = envSchema.safeParse(s.env);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.push(`service ${s.name}: ${String(issue.path[0] ?? 'environment')} is invalid: ${issue.message}`);
        }
      }
    }
    problemsReport(problems);
  });

  it('points DATABASE_URL at the postgres service with its port, database and credentials', () => {
    const problems: string[] = [];
    for (const s of appServices) {
      const raw = s.env.DATABASE_URL;
      if (!raw) continue; // reported above
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        problems.push(`service ${s.name}: DATABASE_URL ${raw} is not a URL`);
        continue;
      }
      const target = services.get(url.hostname);
      if (!target) {
        problems.push(`service ${s.name}: DATABASE_URL host ${url.hostname} is not a defined service`);
        continue;
      }
      const port = Number(url.port || 5432);
      if (!listeningPorts(target).has(port)) {
        problems.push(`service ${s.name}: DATABASE_URL port ${port} is not a port ${target.name} listens on (${[...listeningPorts(target)].join(', ') || 'none known'})`);
      }
      if (!isPostgresImage(target.image)) {
        problems.push(`service ${s.name}: DATABASE_URL points at ${target.name}, which does not run a postgres image`);
        continue;
      }
      const pgUser = target.env.POSTGRES_USER || 'postgres';
      const pgDb = target.env.POSTGRES_DB || pgUser;
      const urlUser = decodeURIComponent(url.username);
      const urlDb = decodeURIComponent(url.pathname.replace(/^\//, ''));
      if (urlUser !== pgUser) problems.push(`service ${s.name}: DATABASE_URL user ${urlUser} is not ${target.name}'s POSTGRES_USER (${pgUser})`);
      if (decodeURIComponent(url.password) !== (target.env.POSTGRES_PASSWORD ?? '')) {
        problems.push(`service ${s.name}: DATABASE_URL password differs from ${target.name}'s POSTGRES_PASSWORD`);
      }
      if (urlDb !== pgDb) problems.push(`service ${s.name}: DATABASE_URL database ${urlDb || '(none)'} is not the one ${target.name} creates (POSTGRES_DB=${pgDb})`);
    }
    problemsReport(problems);
  });

  it('points TEMPORAL_ADDRESS (app services and temporal-ui) at the temporal service and its port', () => {
    const problems: string[] = [];
    const uiServices = [...services.values()].filter((s) => isTemporalUiImage(s.image));
    if (uiServices.length === 0) problems.push('no temporal-ui service (temporalio/ui image)');
    for (const s of [...appServices, ...uiServices]) {
      const raw = s.env.TEMPORAL_ADDRESS;
      if (!raw) {
        if (uiServices.includes(s)) problems.push(`service ${s.name} does not set TEMPORAL_ADDRESS`);
        continue; // app services: reported above
      }
      const m = /^([^:/\s]+):(\d+)$/.exec(raw);
      if (!m) {
        problems.push(`service ${s.name}: TEMPORAL_ADDRESS ${raw} is not host:port`);
        continue;
      }
      const [, host = '', port = ''] = m;
      const target = services.get(host);
      if (!target) {
        problems.push(`service ${s.name}: TEMPORAL_ADDRESS host ${host} is not a defined service`);
        continue;
      }
      if (!isTemporalServerImage(target.image)) problems.push(`service ${s.name}: TEMPORAL_ADDRESS points at ${host}, which does not run a Temporal server image`);
      if (!listeningPorts(target).has(Number(port))) {
        problems.push(`service ${s.name}: TEMPORAL_ADDRESS port ${port} is not a port ${host} listens on (${[...listeningPorts(target)].join(', ') || 'none known'})`);
      }
    }
    problemsReport(problems);
  });

  it('gives the Temporal server the postgres service and its credentials', () => {
    const problems: string[] = [];
    for (const t of [...services.values()].filter((s) => isTemporalServerImage(s.image) && s.env.POSTGRES_SEEDS !== undefined)) {
      const pg = services.get(t.env.POSTGRES_SEEDS!);
      if (!pg) {
        problems.push(`service ${t.name}: POSTGRES_SEEDS ${t.env.POSTGRES_SEEDS} is not a defined service`);
        continue;
      }
      if (!listeningPorts(pg).has(Number(t.env.DB_PORT ?? 5432))) problems.push(`service ${t.name}: DB_PORT ${t.env.DB_PORT} is not a port ${pg.name} listens on`);
      if ((t.env.POSTGRES_USER ?? '') !== (pg.env.POSTGRES_USER || 'postgres')) problems.push(`service ${t.name}: POSTGRES_USER differs from ${pg.name}'s`);
      if ((t.env.POSTGRES_PWD ?? '') !== (pg.env.POSTGRES_PASSWORD ?? '')) problems.push(`service ${t.name}: POSTGRES_PWD differs from ${pg.name}'s POSTGRES_PASSWORD`);
      if (!t.dependsOn.some((d) => d.service === pg.name)) problems.push(`service ${t.name} does not depend on ${pg.name}`);
    }
    problemsReport(problems);
  });

  it('starts the app services after what they connect to, and after migrations', () => {
    const problems: string[] = [];
    const closure = (name: string): Set<string> => {
      const out = new Set<string>();
      const stack = [...(services.get(name)?.dependsOn ?? []).map((d) => d.service)];
      while (stack.length) {
        const n = stack.pop()!;
        if (out.has(n)) continue;
        out.add(n);
        stack.push(...(services.get(n)?.dependsOn ?? []).map((d) => d.service));
      }
      return out;
    };
    const migrators = appServices.filter((s) => commandOf(s) === 'migrate');
    if (migrators.length === 0) problems.push('no service runs `migrate`');
    for (const s of appServices) {
      const upstream = closure(s.name);
      const hosts = [s.env.DATABASE_URL && URL.canParse(s.env.DATABASE_URL) ? new URL(s.env.DATABASE_URL).hostname : undefined, s.env.TEMPORAL_ADDRESS?.split(':')[0]];
      for (const host of hosts) {
        if (host && services.has(host) && !upstream.has(host)) problems.push(`service ${s.name} connects to ${host} but does not (transitively) depend on it`);
      }
      if (commandOf(s) === 'migrate') continue;
      for (const m of migrators) {
        if (!s.dependsOn.some((d) => d.service === m.name && d.condition === 'service_completed_successfully')) {
          problems.push(`service ${s.name} does not wait for ${m.name} with condition service_completed_successfully`);
        }
      }
    }
    problemsReport(problems);
  });

  it('runs the api and worker commands, which bin/hosted-agents.js defines', () => {
    const problems: string[] = [];
    for (const c of ['api', 'worker']) if (!cliText.includes(`command('${c}')`)) problems.push(`cli/main.ts does not define command('${c}')`);
    const reached = transitiveFiles(path.join(root, CLI_ENTRY));
    if (!reached.has(path.join(root, 'cli/main.ts'))) problems.push(`${CLI_ENTRY} does not load cli/main.ts`);
    const api = services.get('api');
    const worker = services.get('worker');
    if (api && commandOf(api) !== 'api') problems.push(`service api runs \`${commandOf(api) ?? '(nothing)'}\`, not \`api\``);
    if (worker && commandOf(worker) !== 'worker') problems.push(`service worker runs \`${commandOf(worker) ?? '(nothing)'}\`, not \`worker\``);
    for (const s of appServices) {
      const c = commandOf(s);
      if (c === undefined || !cliCommands.has(c)) problems.push(`service ${s.name} runs \`${c ?? '(nothing)'}\`, which is not a hosted-agents command (${[...cliCommands].join(', ')})`);
    }
    problemsReport(problems);
  });

  it("runs the api with a 64 MiB young generation, as docs/operations.md's Production layout says (held refusals die young)", () => {
    const options = services.get('api')?.env.NODE_OPTIONS ?? '';
    assert.match(options, /(^|\s)--max-semi-space-size=64(\s|$)/, `service api: NODE_OPTIONS is \`${options}\``);
  });

  it('publishes each host port once, and the api container port is its PORT', () => {
    const problems: string[] = [];
    const seen = new Map<string, string>();
    for (const s of services.values()) {
      for (const p of s.ports) {
        if (p.hostPort === undefined) continue;
        const key = `${p.hostPort}/${p.protocol}`;
        const other = seen.get(key);
        if (other) problems.push(`host port ${key} is published by both ${other} and ${s.name}`);
        seen.set(key, s.name);
      }
    }
    for (const s of appServices.filter((x) => x.ports.length > 0)) {
      const parsed = envSchema.safeParse(s.env);
      const port = parsed.success ? parsed.data.PORT : undefined;
      for (const p of s.ports) {
        if (port !== undefined && p.containerPort !== port) problems.push(`service ${s.name} publishes container port ${p.containerPort} but listens on PORT=${port}`);
      }
    }
    problemsReport(problems);
  });

  it('publishes the Temporal frontend and UI only on loopback (they have no authentication)', () => {
    const temporalSide = [...services.values()].filter((s) => isTemporalServerImage(s.image) || /temporalio\/ui/.test(s.image ?? ''));
    assert.ok(temporalSide.length >= 2, 'the Temporal server and its UI are services');
    const open = temporalSide.flatMap((s) => s.ports.filter((p) => p.hostPort !== undefined && !['127.0.0.1', '::1', '[::1]'].includes(p.hostIp)).map((p) => `${s.name}: ${p.raw}`));
    assert.deepEqual(open, []);
  });
});

describe('Dockerfile', () => {
  /** The Dockerfiles docker-compose.yml builds. */
  let dockerfiles: string[];
  /** Top-level entries the CLI loads at run time (at least REQUIRED_TOP_LEVEL). */
  let requiredTopLevel: string[];
  before(() => {
    const { services } = loadCompose();
    dockerfiles = [...new Set([...services.values()].filter((s) => s.build !== undefined).map(dockerfilePath))].filter((f) => fs.existsSync(f));
    const needed = new Set(REQUIRED_TOP_LEVEL);
    for (const file of transitiveFiles(path.join(root, CLI_ENTRY))) needed.add(path.relative(root, file).split(path.sep)[0]!);
    requiredTopLevel = [...needed].sort();
  });

  it('is used by the compose file', () => {
    assert.ok(dockerfiles.length > 0, 'no service in docker-compose.yml builds from an existing Dockerfile');
  });

  it('builds on a maintained Node LTS line (22 or later, even-numbered), not Node 20', () => {
    for (const file of dockerfiles) {
      const image = /^ARG NODE_IMAGE=node:(\d+)[-.\w]*$/m.exec(fs.readFileSync(file, 'utf8'));
      assert.ok(image, `${path.relative(root, file)}: no ARG NODE_IMAGE=node:<major>…`);
      const major = Number(image[1]);
      assert.ok(major >= 22 && major % 2 === 0, `${path.relative(root, file)}: node:${major} is not a maintained LTS line`);
    }
  });

  it('runs bin/hosted-agents.js as a non-root user', () => {
    const problems: string[] = [];
    for (const file of dockerfiles) {
      const stage = finalStage(fs.readFileSync(file, 'utf8'));
      const rel = path.relative(root, file);
      const entrypoint = stage.filter((i) => i.keyword === 'ENTRYPOINT').pop();
      if (!entrypoint) problems.push(`${rel}: the final stage has no ENTRYPOINT`);
      else if (!words(entrypoint.args).some((w) => w.replace(/^\.\//, '') === CLI_ENTRY || w.endsWith(`/${CLI_ENTRY}`))) {
        problems.push(`${rel}: ENTRYPOINT ${entrypoint.args} does not run ${CLI_ENTRY}`);
      }
      const user = stage.filter((i) => i.keyword === 'USER').pop();
      if (!user) problems.push(`${rel}: no USER in the final stage (the container would run as root)`);
      else if (/^(root|0)(:|$)/.test(user.args.trim())) problems.push(`${rel}: USER ${user.args} is root`);
    }
    problemsReport(problems);
  });

  it(`copies every top-level folder that ${CLI_ENTRY} transitively needs, and .dockerignore keeps them`, () => {
    const problems: string[] = [];
    const dockerignorePath = path.join(root, '.dockerignore');
    const dockerignore = fs.existsSync(dockerignorePath) ? fs.readFileSync(dockerignorePath, 'utf8') : '';
    for (const file of dockerfiles) {
      const rel = path.relative(root, file);
      const sources = contextCopySources(finalStage(fs.readFileSync(file, 'utf8')));
      for (const name of requiredTopLevel) {
        if (!sources.some((src) => copies(src, name))) problems.push(`${rel}: no COPY brings ${name} into the image (${CLI_ENTRY} needs it)`);
        for (const pattern of ignoredBy(dockerignore, name)) problems.push(`.dockerignore excludes ${name} (pattern ${pattern}), which the image needs`);
      }
    }
    problemsReport(problems);
  });
});
