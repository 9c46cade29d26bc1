import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { json, startTestServer, type TestServer } from './sdk-test-server';

/** The package's public surface, typed from source so this file typechecks before a build. */
type Sdk = typeof import('../../sdk/src');

const packageName = '@hosted-agents/sdk';
const sdkDir = path.resolve(__dirname, '../../sdk');

/**
 * The built package (`npm run build -w @hosted-agents/sdk`), loaded the way users load it:
 * `require` picks dist/index.cjs and `import()` picks dist/index.js through the exports map.
 */
describe('SDK build: both module formats load and work', () => {
  let server: TestServer;
  let cjs: Sdk;
  let esm: Sdk;
  before(async () => {
    server = await startTestServer();
    cjs = require(packageName);
    const specifier: string = packageName; // a variable keeps TypeScript from resolving dist/ types
    esm = await import(specifier);
  });
  after(() => server.close());

  it('require() resolves to dist/index.cjs and import() to a separate ESM instance', () => {
    assert.equal(path.relative(sdkDir, require.resolve(packageName)), path.join('dist', 'index.cjs'));
    assert.notEqual(esm.ServiceError, cjs.ServiceError, 'import() returned the CommonJS build');
  });

  for (const format of ['cjs', 'esm'] as const) {
    it(`the ${format} build exposes Service and ServiceError and fails with its own ServiceError`, async () => {
      const sdk = format === 'cjs' ? cjs : esm;
      assert.equal(typeof sdk.Service, 'function');
      assert.equal(typeof sdk.Service.getWorkspace, 'function');
      server.respond((_req, res) => json(res, 404, { error: { code: 'workspace_not_found', message: 'gone', retryable: false } }));
      const err = await new sdk.Service({ apiKey: 'k', baseURL: server.baseURL }).get().catch((e: unknown) => e);
      assert.ok(err instanceof sdk.ServiceError, `not the ${format} ServiceError: ${String(err)}`);
      assert.equal(err.code, 'workspace_not_found');
      assert.equal(err.status, 404);
    });
  }

  for (const format of ['cjs', 'esm'] as const) {
    it(`the ${format} build has ws.agents and loadWorkflows, which loads Node's fs only when called`, async () => {
      const sdk = format === 'cjs' ? cjs : esm;
      const ws = new sdk.Service({ apiKey: 'k', baseURL: server.baseURL });
      assert.equal(typeof ws.agents.create, 'function');
      assert.equal(ws.agent('agt_1').id, 'agt_1');
      const dir = mkdtempSync(path.join(tmpdir(), 'sdk-build-'));
      try {
        writeFileSync(path.join(dir, 'w.md'), '---\nname: W\nwhen: always\n---\nDo it.\n');
        assert.deepEqual(await sdk.loadWorkflows(dir), [{ name: 'W', when: 'always', content: 'Do it.' }]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('the bundles import no Node built-ins and nothing but eventsource-parser (they run in browsers)', () => {
    for (const file of ['dist/index.js', 'dist/index.cjs']) {
      const code = readFileSync(path.join(sdkDir, file), 'utf8');
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(specifiers)], ['eventsource-parser'], file);
    }
  });
});
