import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { envSchema } from '../../config/env';

/**
 * docker-compose.yml and the Dockerfile against the code they run: service references, the
 * start-up order, env var names (config/env.ts), addresses, ports and the image's contents.
 * Everything a `docker compose up` would only reveal after minutes of building and waiting.
 */

const root = path.resolve(__dirname, '../..');
const composePath = path.join(root, 'docker-compose.yml');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// --- compose model ------------------------------------------------------------------------------

/**
 * Compose-style interpolation with an empty environment, so the test does not depend on the
 * shell: `${VAR:-default}` / `${VAR-default}` give the default, `${VAR}` gives '', required
 * variables (`${VAR:?msg}`) get a placeholder shaped like a real key (64 hex characters), `$$` is a literal `$`.
 */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, op?: string, arg?: string) => {
      if (whole === '$$') return '$';
      if (braced === undefined) return ''; // $VAR, unset
      if (op === ':-' || op === '-') return interpolate(arg ?? '');
      // 64 hex characters, distinct per variable: as long as a real secret, and a valid 32-byte key.
      if (op === ':?' || op === '?') return createHash('sha256').update(`required ${braced}`).digest('hex');
      return ''; // ${VAR}, ${VAR:+alt} with VAR unset
    });
}

function deepInterpolate(v: unknown): unknown {
  if (typeof v === 'string') return interpolate(v);
  if (Array.isArray(v)) return v.map(deepInterpolate);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepInterpolate(x)]));
  return v;
}

interface Dependency {
  service: string;
  condition: string;
}

interface PublishedPort {
  raw: string;
  hostIp: string;
  hostPort: number | undefined;
  containerPort: number;
  protocol: string;
}

interface Service {
  name: string;
  raw: Obj;
  image: string | undefined;
  build: { context: string; dockerfile: string } | undefined;
  /** As written, so a `<<` merge that did not happen shows up as an unknown key. */
  env: Record<string, string>;
  command: string[] | undefined;
  dependsOn: Dependency[];
  ports: PublishedPort[];
  restart: string | undefined;
  healthcheck: Obj | undefined;
}

function normalizeEnv(env: unknown): Record<string, string> {
  if (env === undefined || env === null) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((line) => {
      const text = String(line);
      const eq = text.indexOf('=');
      return eq === -1 ? [text, ''] : [text.slice(0, eq), text.slice(eq + 1)];
    }));
  }
  if (isObj(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
  throw new Error(`environment must be a map or a list, got ${JSON.stringify(env)}`);
}

function normalizeDependsOn(d: unknown): Dependency[] {
  if (d === undefined || d === null) return [];
  if (Array.isArray(d)) return d.map((service) => ({ service: String(service), condition: 'service_started' }));
  if (isObj(d)) {
    return Object.entries(d).map(([service, spec]) => ({
      service,
      condition: isObj(spec) && spec.condition !== undefined ? String(spec.condition) : 'service_started',
    }));
  }
  throw new Error(`depends_on must be a list or a map, got ${JSON.stringify(d)}`);
}

/** "8080" or "8000-8002" as [first, last]. */
function range(text: string): [number, number] {
  const [from = '', to = from] = text.split('-');
  return [Number(from), Number(to)];
}

function normalizePorts(ports: unknown): PublishedPort[] {
  if (ports === undefined || ports === null) return [];
  if (!Array.isArray(ports)) throw new Error(`ports must be a list, got ${JSON.stringify(ports)}`);
  const out: PublishedPort[] = [];
  for (const p of ports) {
    if (isObj(p)) {
      out.push({
        raw: JSON.stringify(p),
        hostIp: p.host_ip === undefined ? '' : String(p.host_ip),
        hostPort: p.published === undefined ? undefined : Number(p.published),
        containerPort: Number(p.target),
        protocol: p.protocol === undefined ? 'tcp' : String(p.protocol),
      });
      continue;
    }
    const raw = String(p);
    const [spec = '', protocol = 'tcp'] = raw.split('/');
    const parts = spec.split(':');
    const container = parts.pop() ?? '';
    const host = parts.pop() ?? '';
    const hostIp = parts.join(':');
    const [cFrom, cTo] = range(container);
    const hostRange = host === '' ? undefined : range(host);
    for (let c = cFrom; c <= cTo; c++) {
      out.push({ raw, hostIp, hostPort: hostRange ? hostRange[0] + (c - cFrom) : undefined, containerPort: c, protocol });
    }
  }
  return out;
}

function normalizeCommand(c: unknown): string[] | undefined {
  if (c === undefined || c === null) return undefined;
  if (Array.isArray(c)) return c.map(String);
  return String(c).trim().split(/\s+/);
}

function loadCompose(): { services: Map<string, Service>; raw: Obj } {
  const text = fs.readFileSync(composePath, 'utf8');
  let document: unknown;
  try {
    // Duplicate keys (e.g. two services with one name) are errors too.
    document = parse(text, { merge: true });
  } catch (e) {
    assert.fail(`docker-compose.yml is not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = deepInterpolate(document);
  assert.ok(isObj(parsed), 'docker-compose.yml: the top level must be a map');
  assert.ok(isObj(parsed.services), 'docker-compose.yml: `services` must be a map');
  const services = new Map<string, Service>();
  for (const [name, def] of Object.entries(parsed.services)) {
    assert.ok(isObj(def), `service ${name}: its definition must be a map`);
    let build: Service['build'];
    if (typeof def.build === 'string') build = { context: def.build, dockerfile: 'Dockerfile' };
    else if (isObj(def.build)) {
      build = {
        context: def.build.context === undefined ? '.' : String(def.build.context),
        dockerfile: def.build.dockerfile === undefined ? 'Dockerfile' : String(def.build.dockerfile),
      };
    }
    services.set(name, {
      name,
      raw: def,
      image: def.image === undefined ? undefined : String(def.image),
      build,
      env: normalizeEnv(def.environment),
      command: normalizeCommand(def.command),
      dependsOn: normalizeDependsOn(def.depends_on),
      ports: normalizePorts(def.ports),
      restart: def.restart === undefined ? undefined : String(def.restart),
      healthcheck: isObj(def.healthcheck) ? def.healthcheck : undefined,
    });
  }
  return { services, raw: parsed };
}

const dockerfilePath = (s: Service) => path.resolve(root, s.build!.context, s.build!.dockerfile);
const isPostgresImage = (image: string | undefined) => image !== undefined && /^(docker\.io\/)?(library\/)?postgres(:|@|$)/.test(image);
const isTemporalServerImage = (image: string | undefined) =>
  image !== undefined && /^(docker\.io\/)?temporalio\/(auto-setup|server)(:|@|$)/.test(image);
const isTemporalUiImage = (image: string | undefined) => image !== undefined && /^(docker\.io\/)?temporalio\/ui(:|@|$)/.test(image);

/** Ports a service's process listens on inside the compose network. */
function listeningPorts(s: Service): Set<number> {
  const ports = new Set<number>(s.ports.map((p) => p.containerPort));
  for (const e of Array.isArray(s.raw.expose) ? s.raw.expose : []) ports.add(Number(String(e).split('/')[0]));
  if (isPostgresImage(s.image)) ports.add(Number(s.env.PGPORT ?? 5432));
  if (isTemporalServerImage(s.image)) ports.add(Number(s.env.FRONTEND_GRPC_PORT ?? 7233));
  return ports;
}

function problemsReport(problems: string[]): void {
  assert.ok(problems.length === 0, `docker-compose.yml / Dockerfile:\n  - ${problems.join('\n  - ')}`);
}

// --- Dockerfile model ---------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions of the final build stage (line continuations joined, comments dropped). */
function finalStage(dockerfileText: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const line of dockerfileText.split(/\r?\n/)) {
    if (/^\s*#/.test(line)) continue; // comments (also inside a continuation) and parser directives
    if (/\\\s*$/.test(line)) {
      current += `${line.replace(/\\\s*$/, '')} `;
      continue;
    }
    current += line;
    if (current.trim() !== '') logical.push(current.trim());
    current = '';
  }
  if (current.trim() !== '') logical.push(current.trim());
  const instructions = logical.map((l) => {
    const m = /^(\S+)\s*(.*)$/.exec(l)!;
    return { keyword: m[1]!.toUpperCase(), args: m[2] ?? '' };
  });
  const lastFrom = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  return lastFrom === -1 ? instructions : instructions.slice(lastFrom);
}

/** The words of an exec-form (JSON) or shell-form instruction. */
function words(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // falls through to shell form, as Docker does
    }
  }
  return trimmed.split(/\s+/).filter(Boolean);
}

/** Sources of the COPY/ADD instructions that copy from the build context (not `--from`). */
function contextCopySources(stage: Instruction[]): string[] {
  const sources: string[] = [];
  for (const i of stage) {
    if (i.keyword !== 'COPY' && i.keyword !== 'ADD') continue;
    const w = words(i.args);
    if (w.some((x) => x.startsWith('--from'))) continue;
    const paths = w.filter((x) => !x.startsWith('--'));
    paths.pop(); // destination
    sources.push(...paths);
  }
  return sources;
}

/** Does a COPY source (maybe a Docker glob: * ? [..]) bring the top-level entry `name`? */
function copies(source: string, name: string): boolean {
  const s = source.replace(/^\.\//, '').replace(/\/+$/, '');
  if (s === '' || s === '.' || s === name) return true;
  if (s.includes('/') || !/[*?[]/.test(s)) return false;
  const glob = new RegExp(`^${s.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return glob.test(name);
}

/** Top-level .dockerignore entries that exclude `name` (simple patterns only). */
function ignoredBy(dockerignore: string, name: string): string[] {
  return dockerignore
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
    .filter((l) => l.replace(/^\.?\//, '').replace(/\/+$/, '') === name);
}

// --- the code the image runs --------------------------------------------------------------------

/** Files reached from `entry` through relative import/require, including require.resolve. */
function transitiveFiles(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifier = /(?:from\s+|import\s*\(\s*|import\s+|require(?:\.resolve)?\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;
  const resolveFile = (base: string): string | undefined => {
    const candidates = [base, `${base}.ts`, `${base}.js`, `${base}.json`, path.join(base, 'index.ts'), path.join(base, 'index.js')];
    return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  };
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(specifier)) {
      const target = resolveFile(path.resolve(path.dirname(file), m[1]!));
      assert.ok(target, `${path.relative(root, file)} imports ${m[1]} which does not exist`);
      if (!target.includes(`${path.sep}node_modules${path.sep}`)) visit(target);
    }
  };
  visit(entry);
  return seen;
}

const CLI_ENTRY = 'bin/hosted-agents.js';
const REQUIRED_TOP_LEVEL = ['api', 'workers', 'workflows', 'activities', 'db', 'domain', 'config', 'infra', 'services', 'cli', 'bin'];
const ALLOWED_CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);

// --- tests --------------------------------------------------------------------------------------

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
