import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * What test/ops/docker-compose.unit.test.ts checks docker-compose.yml and the Dockerfile with:
 * the compose file as Compose reads it (interpolation, services, ports, dependencies), the
 * Dockerfile's final stage and what it copies, and the files the CLI reaches.
 */
export const root = path.resolve(__dirname, '../..');
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

export interface Service {
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

export function loadCompose(): { services: Map<string, Service>; raw: Obj } {
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

export const dockerfilePath = (s: Service) => path.resolve(root, s.build!.context, s.build!.dockerfile);
/** The official image, or pgvector's (the official one with the extension added). */
export const isPostgresImage = (image: string | undefined) => image !== undefined && /^(docker\.io\/)?((library\/)?postgres|pgvector\/pgvector)(:|@|$)/.test(image);
export const isTemporalServerImage = (image: string | undefined) =>
  image !== undefined && /^(docker\.io\/)?temporalio\/(auto-setup|server)(:|@|$)/.test(image);
export const isTemporalAdminToolsImage = (image: string | undefined) => image !== undefined && /^(docker\.io\/)?temporalio\/admin-tools(:|@|$)/.test(image);
export const isTemporalUiImage = (image: string | undefined) => image !== undefined && /^(docker\.io\/)?temporalio\/ui(:|@|$)/.test(image);

/** Ports a service's process listens on inside the compose network. */
export function listeningPorts(s: Service): Set<number> {
  const ports = new Set<number>(s.ports.map((p) => p.containerPort));
  for (const e of Array.isArray(s.raw.expose) ? s.raw.expose : []) ports.add(Number(String(e).split('/')[0]));
  if (isPostgresImage(s.image)) ports.add(Number(s.env.PGPORT ?? 5432));
  if (isTemporalServerImage(s.image)) ports.add(Number(s.env.FRONTEND_GRPC_PORT ?? 7233));
  return ports;
}

export function problemsReport(problems: string[]): void {
  assert.ok(problems.length === 0, `docker-compose.yml / Dockerfile:\n  - ${problems.join('\n  - ')}`);
}

// --- Dockerfile model ---------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions of the final build stage (line continuations joined, comments dropped). */
export function finalStage(dockerfileText: string): Instruction[] {
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
export function words(args: string): string[] {
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
export function contextCopySources(stage: Instruction[]): string[] {
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
export function copies(source: string, name: string): boolean {
  const s = source.replace(/^\.\//, '').replace(/\/+$/, '');
  if (s === '' || s === '.' || s === name) return true;
  if (s.includes('/') || !/[*?[]/.test(s)) return false;
  const glob = new RegExp(`^${s.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return glob.test(name);
}

/** Top-level .dockerignore entries that exclude `name` (simple patterns only). */
export function ignoredBy(dockerignore: string, name: string): string[] {
  return dockerignore
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
    .filter((l) => l.replace(/^\.?\//, '').replace(/\/+$/, '') === name);
}

// --- the code the image runs --------------------------------------------------------------------

/** Files reached from `entry` through relative import/require, including require.resolve. */
export function transitiveFiles(entry: string): Set<string> {
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

export const CLI_ENTRY = 'bin/hosted-agents.js';
export const REQUIRED_TOP_LEVEL = ['api', 'workers', 'workflows', 'activities', 'db', 'domain', 'config', 'infra', 'services', 'cli', 'bin'];
export const ALLOWED_CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
