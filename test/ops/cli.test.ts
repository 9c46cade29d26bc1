import assert from 'node:assert/strict';
import { z } from 'zod';
import { apiKeySchema, workspaceSchema } from '../../domain/workspace';
import { useTestApi } from '../support/api';
import { runCli } from '../../harness/cli';
import { fixture } from '../support/fixture';
import { call } from '../../harness/http';

const createdSchema = z.object({ workspace: workspaceSchema.strict(), apiKey: z.string().regex(/^sk_[0-9a-z]{40}$/) }).strict();

describe('admin CLI', () => {
  const api = useTestApi();
  let env: Record<string, string>;
  before(async () => {
    env = { DATABASE_URL: fixture().databaseUrl };
  });

  async function cli(...args: string[]) {
    const r = await runCli(args, env);
    assert.equal(r.code, 0, `hosted-agents ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  it('workspace create --json prints the workspace and a key that works against the API', async () => {
    const out = createdSchema.parse(JSON.parse(await cli('workspace', 'create', '--name', 'Acme Support', '--credits', '250', '--json')));
    assert.equal(out.workspace.name, 'Acme Support');
    assert.equal(out.workspace.credits, 250);
    const res = await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: out.apiKey });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, out.workspace);
  });

  it('workspace list includes created workspaces; credits --add changes the balance', async () => {
    const { workspace } = createdSchema.parse(JSON.parse(await cli('workspace', 'create', '--name', 'listed', '--credits', '10', '--json')));
    const list = z.array(workspaceSchema).parse(JSON.parse(await cli('workspace', 'list', '--json')));
    assert.ok(list.some((w) => w.id === workspace.id));
    const after = workspaceSchema.parse(JSON.parse(await cli('workspace', 'credits', workspace.id, '--add', '5.5', '--json')));
    assert.equal(after.credits, 15.5);
    const less = workspaceSchema.parse(JSON.parse(await cli('workspace', 'credits', workspace.id, '--add', '-3', '--json')));
    assert.equal(less.credits, 12.5);
  });

  it('key create, list and revoke: a revoked key is refused by the API', async () => {
    const { workspace } = createdSchema.parse(JSON.parse(await cli('workspace', 'create', '--name', 'keys', '--credits', '0', '--json')));
    const created = z
      .object({ key: apiKeySchema, apiKey: z.string() })
      .parse(JSON.parse(await cli('key', 'create', '--workspace', workspace.id, '--json')));
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: created.apiKey })).status, 200);

    const keys = z.array(apiKeySchema).parse(JSON.parse(await cli('key', 'list', '--workspace', workspace.id, '--json')));
    assert.equal(keys.length, 2);
    assert.ok(!JSON.stringify(keys).includes(created.apiKey), 'key list must not show key text');

    await cli('key', 'revoke', created.key.id);
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: created.apiKey })).status, 401);
    const listed = z.array(apiKeySchema).parse(JSON.parse(await cli('key', 'list', '--workspace', workspace.id, '--json')));
    assert.ok(listed.find((k) => k.id === created.key.id)?.revokedAt);
  });

  it('bad arguments and unknown ids fail with one line and a non-zero exit', async () => {
    const bad = await runCli(['workspace', 'create', '--name', 'x', '--credits', 'lots'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr.trim(), /^error: --credits: /);
    const missing = await runCli(['workspace', 'credits', 'ws_doesnotexist', '--add', '1'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no workspace ws_doesnotexist/);
    const unknownKey = await runCli(['key', 'revoke', 'key_doesnotexist'], env);
    assert.equal(unknownKey.code, 1);
  });

  it('--help on every command, --version, and exit code 2 for usage errors', async () => {
    const version = await runCli(['--version'], env);
    assert.equal(version.code, 0);
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+/);
    for (const args of [['--help'], ['workspace', 'create', '--help'], ['key', 'revoke', '--help'], ['start', '--help']]) {
      const help = await runCli(args, env);
      assert.equal(help.code, 0, args.join(' '));
      assert.match(help.stdout, /Usage: hosted-agents/);
    }
    const create = await runCli(['workspace', 'create', '--help'], env);
    assert.match(create.stdout, /--credits <n>\s+starting credit balance/, 'options are described');
    for (const args of [['frobnicate'], ['workspace', 'create', '--name', 'x'], ['key', 'revoke'], ['workspace', 'list', '--colour']]) {
      const r = await runCli(args, env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
    }
  });

  it('a bad environment value stops the command with one line naming the variable', async () => {
    const r = await runCli(['workspace', 'list'], { ...env, PORT: 'eighty' });
    assert.equal(r.code, 2);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^configuration error: PORT: /);
  });
});
