import { z } from 'zod';
import { roleSchema } from '../../domain/roles';
import { emailSchema } from '../../domain/member';
import { ownerSignInLink } from '../../services/owner-link';
import type { Config } from '../../config/env';
import { createDb } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories, type Repositories } from '../../db/repositories';
import { sealedColumns } from '../../db/repositories/sealed-values';
import { secretBoxFromConfig } from '../../config/secret-box';
import { rekeySealedValues } from '../../services/rekey';
import { openDatabase, type Say } from '../backing-services';

/** A failure the admin CLI reports as one line on stderr with exit code `exitCode`. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/**
 * Runs an admin verb on the database: DATABASE_URL, or the embedded one under DATA_DIR
 * (the one `npm start` is running, or started just for this command).
 */
async function withRepositories<T>(config: Config, say: Say, fn: (repos: Repositories) => Promise<T>): Promise<T> {
  const database = await openDatabase(config, say);
  const db = createDb({ url: database.url, poolMax: 2 });
  try {
    await migrateLatest(db);
    return await fn(createRepositories(db));
  } finally {
    await db.destroy();
    await database.stop();
  }
}

function parseArg<S extends z.ZodType>(schema: S, value: unknown, name: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new CliError(`${name}: ${r.error.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(value)})`, 2);
  return r.data;
}

const workspaceId = z.string().regex(/^ws_[0-9a-z]+$/, 'a workspace id (ws_…)');
const keyId = z.string().regex(/^key_[0-9a-z]+$/, 'a key id (key_…)');
const number = z.coerce.number().finite();

export async function workspaceCreate(config: Config, say: Say, print: Say, opts: { name: string; credits: string; owner?: string; json?: boolean }) {
  const name = parseArg(z.string().trim().min(1).max(200), opts.name, '--name');
  const credits = parseArg(number.min(0), opts.credits, '--credits');
  const ownerEmail = opts.owner === undefined ? undefined : parseArg(emailSchema, opts.owner, '--owner');
  const out = await withRepositories(config, say, async (repos) => {
    const workspace = await repos.workspaces.create({ name, credits });
    const { apiKey } = await repos.apiKeys.create({ workspaceId: workspace.id });
    if (!ownerEmail) return { workspace, apiKey };
    // The owner signs in once with the link, then sets a password or uses the identity provider.
    const link = await ownerSignInLink(repos, { workspaceId: workspace.id, email: ownerEmail, baseURL: config.baseURL, ttlMinutes: config.SIGN_IN_LINK_TTL_MINUTES });
    return { workspace, apiKey, owner: { memberId: link.memberId, email: link.email, signInLink: link.url, expiresAt: link.expiresAt.toISOString() } };
  });
  if (opts.json) print(JSON.stringify(out));
  else {
    print(`workspace ${out.workspace.id} "${out.workspace.name}" with ${out.workspace.credits} credits`);
    print(`API key (shown once): ${out.apiKey}`);
    if (out.owner) print(`owner ${out.owner.email}: one-time sign-in link (until ${out.owner.expiresAt}): ${out.owner.signInLink}`);
  }
}

export async function workspaceList(config: Config, say: Say, print: Say, opts: { json?: boolean }) {
  const list = await withRepositories(config, say, (repos) => repos.workspaces.list());
  if (opts.json) print(JSON.stringify(list));
  else for (const w of list) print(`${w.id}\t${w.credits}\t${w.createdAt}\t${w.name}`);
}

export async function workspaceCredits(config: Config, say: Say, print: Say, id: string, opts: { add: string; json?: boolean }) {
  const wsId = parseArg(workspaceId, id, 'ID');
  const amount = parseArg(number, opts.add, '--add');
  const ws = await withRepositories(config, say, (repos) => repos.workspaces.addCredits({ id: wsId, amount }));
  if (!ws) throw new CliError(`no workspace ${wsId}`);
  print(opts.json ? JSON.stringify(ws) : `${ws.id} now has ${ws.credits} credits`);
}

/** The operator flag of the diagnostics probe (docs/limits.md): exactly one of `--allow` and `--deny`. */
export async function workspaceDiagnostics(config: Config, say: Say, print: Say, id: string, opts: { allow?: boolean; deny?: boolean; json?: boolean }) {
  const wsId = parseArg(workspaceId, id, 'ID');
  if (opts.allow === opts.deny) throw new CliError('give one of --allow and --deny', 2);
  const allowed = opts.allow === true;
  const ws = await withRepositories(config, say, (repos) => repos.workspaces.setDiagnosticsAllowed({ id: wsId, allowed }));
  if (!ws) throw new CliError(`no workspace ${wsId}`);
  print(opts.json ? JSON.stringify({ id: ws.id, diagnostics: allowed }) : `${ws.id} ${allowed ? 'may now' : 'may no longer'} run the diagnostics probe`);
}

export async function keyCreate(config: Config, say: Say, print: Say, opts: { workspace: string; role?: string; name?: string; json?: boolean }) {
  const wsId = parseArg(workspaceId, opts.workspace, '--workspace');
  const role = parseArg(roleSchema, opts.role ?? 'owner', '--role');
  const name = parseArg(z.string().trim().max(100), opts.name ?? '', '--name');
  const out = await withRepositories(config, say, async (repos) => {
    if (!(await repos.workspaces.get({ id: wsId }))) throw new CliError(`no workspace ${wsId}`);
    return repos.apiKeys.create({ workspaceId: wsId, role, name });
  });
  if (opts.json) print(JSON.stringify({ key: out.record, apiKey: out.apiKey }));
  else print(`${role} key ${out.record.id} for ${wsId} (shown once): ${out.apiKey}`);
}

export async function keyList(config: Config, say: Say, print: Say, opts: { workspace: string; json?: boolean }) {
  const wsId = parseArg(workspaceId, opts.workspace, '--workspace');
  const keys = await withRepositories(config, say, (repos) => repos.apiKeys.list({ workspaceId: wsId }));
  if (opts.json) print(JSON.stringify(keys));
  else for (const k of keys) print(`${k.id}\t${k.prefix}…\t${k.role}\t${k.createdAt}\t${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}\t${k.name}`);
}

export async function keyRevoke(config: Config, say: Say, print: Say, id: string, opts: { json?: boolean }) {
  const kId = parseArg(keyId, id, 'KEY_ID');
  const found = await withRepositories(config, say, (repos) => repos.apiKeys.revoke({ id: kId }));
  if (!found) throw new CliError(`no key ${kId}`);
  print(opts.json ? JSON.stringify({ id: kId, revoked: true }) : `key ${kId} revoked`);
}

export async function secretsRekey(config: Config, say: Say, print: Say, opts: { batchSize: string; limit?: string; json?: boolean }) {
  const batchSize = parseArg(z.coerce.number().int().min(1).max(10_000), opts.batchSize, '--batch-size');
  const limit = opts.limit === undefined ? undefined : parseArg(z.coerce.number().int().min(1), opts.limit, '--limit');
  const box = secretBoxFromConfig(config);
  const report = await withRepositories(config, say, (repos) =>
    rekeySealedValues({ sealedValues: repos.sealedValues, columns: sealedColumns, box }, { batchSize, limit, progress: say }),
  );
  if (opts.json) print(JSON.stringify({ keyId: box.keyId, ...report }));
  else {
    print(`${report.resealed} values re-encrypted under key ${box.keyId}; ${report.alreadyCurrent} were already under it${report.stoppedEarly ? '; stopped early (--limit): run again to finish' : ''}`);
    for (const line of report.failed) print(`not re-encrypted: ${line}`);
  }
  if (report.failed.length > 0) throw new CliError(`${report.failed.length} values could not be opened with any key of SECRETS_KEY`);
}
