import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { type FileEntry, fileEntrySchema, MAX_FILE_BYTES } from '../../domain/file-path';
import { useTestApi } from '../support/api';
import type { ErrorJson } from '../../harness/http';
import { expectFailure, newSdkWorkspace, rawRequest } from '../support/sdk';

/** The entries as the schema reads them, `index` left out: the indexing workflow moves it on its own time (test/knowledge covers it). */
const entries = (list: FileEntry[]) => list.map((e) => fileEntrySchema.parse(e)).map(({ index: _index, ...rest }) => rest);
const withoutIndex = ({ index: _index, ...rest }: FileEntry) => rest;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The first 33 bytes of a real PNG: signature, then the IHDR chunk of a 1×1 image. */
const PNG_HEADER = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
  0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
]);

describe('Agent knowledge files through the SDK', () => {
  const api = useTestApi();

  async function newAgent() {
    const sdk = await newSdkWorkspace(api);
    const agent = await sdk.ws.agents.create({ name: 'Librarian' });
    return { ...sdk, agent };
  }

  it('a text file put is read back byte for byte, and its entry describes it', async () => {
    const { agent } = await newAgent();
    const content = '# Refunds\n\nWithin 30 days — no questions asked. ✓\n';
    const entry = fileEntrySchema.parse(await agent.knowledge.put('guides/refunds.md', content));
    assert.equal(entry.path, 'guides/refunds.md');
    assert.equal(entry.kind, 'file');
    assert.equal(entry.mimeType, 'text/markdown');
    assert.equal(entry.size, Buffer.byteLength(content), 'size counts bytes, not characters');
    assert.ok(!Number.isNaN(Date.parse(entry.modifiedAt)));
    assert.equal(text(await agent.knowledge.read('guides/refunds.md')), content);
    assert.deepEqual(entries(await agent.knowledge.list('guides')), [withoutIndex(entry)]);
    assert.equal(entry.index?.status, 'pending', 'a new knowledge file waits for indexing');
  });

  it('binary content comes back unchanged: every one of the 256 byte values, in both orders', async () => {
    const { agent } = await newAgent();
    const bytes = new Uint8Array(512);
    for (let i = 0; i < 256; i++) {
      bytes[i] = i;
      bytes[511 - i] = i;
    }
    const entry = fileEntrySchema.parse(await agent.knowledge.put('all-bytes.bin', bytes));
    assert.equal(entry.size, 512);
    assert.equal(entry.mimeType, 'application/octet-stream');
    assert.deepEqual(await agent.knowledge.read('all-bytes.bin'), bytes);
  });

  it('a PNG header comes back unchanged, typed image/png by its name', async () => {
    const { agent } = await newAgent();
    const entry = fileEntrySchema.parse(await agent.knowledge.put('img/logo.png', PNG_HEADER));
    assert.equal(entry.mimeType, 'image/png');
    assert.equal(entry.size, PNG_HEADER.byteLength);
    assert.deepEqual(await agent.knowledge.read('img/logo.png'), PNG_HEADER);
    // A Uint8Array that is a view into a larger buffer sends only its own bytes.
    const backing = new Uint8Array(100).fill(0xee);
    backing.set(PNG_HEADER, 10);
    await agent.knowledge.put('img/view.png', backing.subarray(10, 10 + PNG_HEADER.byteLength));
    assert.deepEqual(await agent.knowledge.read('img/view.png'), PNG_HEADER);
    // So do an ArrayBuffer and a Blob.
    await agent.knowledge.put('img/buffer.png', PNG_HEADER.slice().buffer);
    assert.deepEqual(await agent.knowledge.read('img/buffer.png'), PNG_HEADER);
    await agent.knowledge.put('img/blob.png', new Blob([PNG_HEADER]));
    assert.deepEqual(await agent.knowledge.read('img/blob.png'), PNG_HEADER);
  });

  it('the content type is detected from the name, else from the bytes', async () => {
    const { agent } = await newAgent();
    const cases: Array<[string, string | Uint8Array, string]> = [
      ['notes.md', '# Notes', 'text/markdown'],
      ['data.json', '{"a":1}', 'application/json'],
      ['page.html', '<p>hi</p>', 'text/html'],
      ['plain.txt', 'hello', 'text/plain'],
      ['readme.unknownext', 'UTF-8 text: héllo wörld', 'text/plain'],
      ['README', 'no extension, UTF-8 text', 'text/plain'],
      ['blob.unknownext', PNG_HEADER, 'application/octet-stream'],
      ['blob', Uint8Array.from([0x00, 0x01, 0x02, 0xff]), 'application/octet-stream'],
      ['nul.unknownext', 'text with a NUL \u0000 inside', 'application/octet-stream'],
    ];
    for (const [path, content, mimeType] of cases) {
      const entry = fileEntrySchema.parse(await agent.knowledge.put(path, content));
      assert.equal(entry.mimeType, mimeType, path);
    }
    const listed = new Map(entries(await agent.knowledge.list()).map((e) => [e.path, e.mimeType]));
    assert.deepEqual(listed, new Map(cases.map(([path, , mimeType]) => [path, mimeType])));
  });

  it('a read answers with the detected content type', async () => {
    const { agent, apiKey } = await newAgent();
    await agent.knowledge.put('data.json', '{"a":1}');
    await agent.knowledge.put('blob', Uint8Array.from([0xff, 0x00]));
    const json = await rawRequest(api.baseURL, 'GET', `/v1/agents/${agent.id}/knowledge/data.json`, { apiKey });
    assert.equal(json.status, 200);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    assert.deepEqual(json.body, { a: 1 });
    const blob = await rawRequest(api.baseURL, 'GET', `/v1/agents/${agent.id}/knowledge/blob`, { apiKey });
    assert.equal(blob.headers['content-type'], 'application/octet-stream');
  });

  it('putting to an existing path replaces the file', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('faq.md', 'first version, longer');
    const entry = fileEntrySchema.parse(await agent.knowledge.put('faq.md', 'second'));
    assert.equal(entry.size, 6);
    assert.equal(text(await agent.knowledge.read('faq.md')), 'second');
    assert.deepEqual(entries(await agent.knowledge.list()), [withoutIndex(entry)]);
  });

  it('folders appear in listings as directories, folders first, then files, each by name', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('b.json', '{}');
    await agent.knowledge.put('a.md', '# a');
    await agent.knowledge.put('docs/sub/deep.md', 'deep');
    await agent.knowledge.put('docs/x.md', 'x');
    await agent.knowledge.put('assets/logo.png', PNG_HEADER);

    const top = entries(await agent.knowledge.list());
    assert.deepEqual(
      top.map((e) => [e.path, e.kind]),
      [
        ['assets', 'directory'],
        ['docs', 'directory'],
        ['a.md', 'file'],
        ['b.json', 'file'],
      ],
    );
    for (const dir of top.filter((e) => e.kind === 'directory')) {
      assert.equal(dir.mimeType, 'inode/directory');
      assert.equal(dir.size, 0);
    }
    assert.deepEqual(
      entries(await agent.knowledge.list('docs')).map((e) => [e.path, e.kind]),
      [
        ['docs/sub', 'directory'],
        ['docs/x.md', 'file'],
      ],
    );
    assert.deepEqual(
      entries(await agent.knowledge.list('docs/sub')).map((e) => [e.path, e.kind, e.size]),
      [['docs/sub/deep.md', 'file', 4]],
    );
    assert.deepEqual(await agent.knowledge.list('nothing-here'), []);
  });

  it('a recursive listing shows every file at any depth, by path, where the top shows only its folder', async () => {
    const { ws, agent, apiKey } = await newAgent();
    await agent.knowledge.put('policies/x.pdf', '%PDF-1.4 x');
    await agent.knowledge.put('policies/old/y.md', 'y');
    await agent.knowledge.put('a.md', 'a');
    assert.deepEqual(entries(await agent.knowledge.list()).map((e) => e.path), ['policies', 'a.md'], 'one level: the PDF is inside a folder');
    assert.deepEqual(
      entries(await agent.knowledge.list({ recursive: true })).map((e) => [e.path, e.kind]),
      [
        ['a.md', 'file'],
        ['policies/old/y.md', 'file'],
        ['policies/x.pdf', 'file'],
      ],
    );
    assert.deepEqual(entries(await agent.knowledge.list({ dir: 'policies/old', recursive: true })).map((e) => e.path), ['policies/old/y.md']);

    // The same flag on the other file spaces, and a value that is not true/false is refused.
    const { id: projectId } = await ws.projects.create({ name: 'Files' });
    const put = await fetch(`${api.baseURL}/v1/projects/${projectId}/files/out/deep/report.md`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/markdown' },
      body: 'r',
    });
    assert.equal(put.status, 200, await put.clone().text());
    assert.deepEqual((await ws.project(projectId).files({ recursive: true })).map((e) => e.path), ['out/deep/report.md']);
    const conversation = await agent.start();
    await conversation.writeFile('notes/today.md', 'n');
    assert.deepEqual((await conversation.files({ recursive: true })).map((e) => e.path), ['notes/today.md']);
    const res = await rawRequest(api.baseURL, 'GET', `/v1/agents/${agent.id}/knowledge?recursive=yes`, { apiKey });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match((res.body as ErrorJson).error.message, /^query\.recursive: /);
  });

  it('a new agent has no knowledge files', async () => {
    const { agent } = await newAgent();
    assert.deepEqual(await agent.knowledge.list(), []);
  });

  it('paths are normalised: empty segments and trailing slashes name the same file', async () => {
    const { agent } = await newAgent();
    const entry = fileEntrySchema.parse(await agent.knowledge.put('docs//guide.md', 'one'));
    assert.equal(entry.path, 'docs/guide.md');
    assert.equal(text(await agent.knowledge.read('docs/guide.md')), 'one');
    assert.equal(text(await agent.knowledge.read('docs///guide.md')), 'one');
    assert.deepEqual(entries(await agent.knowledge.list('docs/')).map((e) => e.path), ['docs/guide.md']);
  });

  it('names with spaces, unicode, # and ? round-trip through the SDK', async () => {
    const { agent } = await newAgent();
    const path = 'Führer durch/100% sure? #1 & more.md';
    const entry = fileEntrySchema.parse(await agent.knowledge.put(path, 'odd name'));
    assert.equal(entry.path, path);
    assert.equal(text(await agent.knowledge.read(path)), 'odd name');
    assert.deepEqual(entries(await agent.knowledge.list('Führer durch')).map((e) => e.path), [path]);
    await agent.knowledge.remove(path);
    assert.deepEqual(await agent.knowledge.list(), []);
  });

  it('remove deletes a file, or a folder with everything in it', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('keep.md', 'keep');
    await agent.knowledge.put('old/a.md', 'a');
    await agent.knowledge.put('old/deeper/b.md', 'b');
    await agent.knowledge.put('older.md', 'not inside old/');
    assert.equal(await agent.knowledge.remove('keep.md'), undefined);
    await expectFailure(agent.knowledge.read('keep.md'), 404, 'file_not_found');
    await agent.knowledge.remove('old');
    assert.deepEqual(entries(await agent.knowledge.list()).map((e) => e.path), ['older.md']);
    await expectFailure(agent.knowledge.read('old/deeper/b.md'), 404, 'file_not_found');
  });

  it('reading or removing a path that holds nothing answers 404 file_not_found', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('docs/a.md', 'a');
    await expectFailure(agent.knowledge.read('missing.md'), 404, 'file_not_found');
    await expectFailure(agent.knowledge.read('docs'), 404, 'file_not_found');
    await expectFailure(agent.knowledge.remove('missing.md'), 404, 'file_not_found');
  });

  it("one agent's knowledge is not another's, even in the same workspace", async () => {
    const { ws, agent } = await newAgent();
    const other = await ws.agents.create({ name: 'Other' });
    await agent.knowledge.put('secret.md', 'mine');
    assert.deepEqual(await other.knowledge.list(), []);
    await expectFailure(other.knowledge.read('secret.md'), 404, 'file_not_found');
    await expectFailure(other.knowledge.remove('secret.md'), 404, 'file_not_found');
    assert.equal(text(await agent.knowledge.read('secret.md')), 'mine');
  });

  it('a file under the path of an existing file answers 409 path_conflict', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('a.txt', 'a file');
    await expectFailure(agent.knowledge.put('a.txt/b.txt', 'inside a file?'), 409, 'path_conflict');
    await expectFailure(agent.knowledge.put('a.txt/deeper/c.txt', 'inside a file?'), 409, 'path_conflict');
    assert.deepEqual(entries(await agent.knowledge.list()).map((e) => [e.path, e.kind]), [['a.txt', 'file']]);
    assert.equal(text(await agent.knowledge.read('a.txt')), 'a file');
  });

  it('a file at the path of an existing folder answers 409 path_conflict', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('docs/a.md', 'a');
    await expectFailure(agent.knowledge.put('docs', 'replace the folder?'), 409, 'path_conflict');
    assert.deepEqual(entries(await agent.knowledge.list()).map((e) => [e.path, e.kind]), [['docs', 'directory']]);
    assert.equal(text(await agent.knowledge.read('docs/a.md')), 'a');
  });

  it(`a file of exactly ${MAX_FILE_BYTES} bytes is stored; one byte more answers 400 file_too_large`, async () => {
    const { agent } = await newAgent();
    const max = new Uint8Array(MAX_FILE_BYTES).fill(0x61);
    max[MAX_FILE_BYTES - 1] = 0x7a;
    const stored = fileEntrySchema.parse(await agent.knowledge.put('max.txt', max));
    assert.equal(stored.size, MAX_FILE_BYTES);
    const back = await agent.knowledge.read('max.txt');
    assert.equal(back.byteLength, MAX_FILE_BYTES);
    assert.equal(back[MAX_FILE_BYTES - 1], 0x7a);

    const tooLarge = new Uint8Array(MAX_FILE_BYTES + 1);
    const e = await expectFailure(agent.knowledge.put('too-large.bin', tooLarge), 400, 'file_too_large');
    assert.match(e.message, new RegExp(String(MAX_FILE_BYTES)));
    await expectFailure(agent.knowledge.read('too-large.bin'), 404, 'file_not_found');
    // Replacing an existing file with a too-large one keeps the old content.
    await expectFailure(agent.knowledge.put('max.txt', tooLarge), 400, 'file_too_large');
    assert.equal((await agent.knowledge.list()).find((x) => x.path === 'max.txt')?.size, MAX_FILE_BYTES);
  }).timeout(120_000);

  it('an upload sent with Content-Encoding gzip, deflate or br is stored decoded; other encodings and corrupt data answer 400', async () => {
    const { agent, apiKey } = await newAgent();
    const content = Buffer.from('compressed on the way, plain at rest\n'.repeat(50));
    for (const [encoding, encoded] of [['gzip', gzipSync(content)], ['deflate', deflateSync(content)], ['br', brotliCompressSync(content)]] as const) {
      const res = await rawRequest(api.baseURL, 'PUT', `/v1/agents/${agent.id}/knowledge/${encoding}.txt`, {
        apiKey, body: encoded, headers: { 'content-type': 'text/plain', 'content-encoding': encoding },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((res.body as FileEntry).size, content.byteLength);
      assert.deepEqual(Buffer.from(await agent.knowledge.read(`${encoding}.txt`)), content);
    }
    const compress = await rawRequest(api.baseURL, 'PUT', `/v1/agents/${agent.id}/knowledge/lzw.txt`, {
      apiKey, body: content, headers: { 'content-type': 'text/plain', 'content-encoding': 'compress' },
    });
    assert.equal(compress.status, 400);
    assert.match((compress.body as ErrorJson).error.message, /content-encoding/);
    const corrupt = await rawRequest(api.baseURL, 'PUT', `/v1/agents/${agent.id}/knowledge/corrupt.txt`, {
      apiKey, body: Buffer.from('not gzip at all'), headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.equal(corrupt.status, 400);
    // A small body that expands past the file limit is refused like a large one.
    const bomb = await rawRequest(api.baseURL, 'PUT', `/v1/agents/${agent.id}/knowledge/bomb.txt`, {
      apiKey, body: gzipSync(Buffer.alloc(MAX_FILE_BYTES + 1)), headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    });
    assert.equal(bomb.status, 400);
    assert.equal((bomb.body as ErrorJson).error.code, 'file_too_large');
    assert.deepEqual((await agent.knowledge.list()).map((e) => e.path).sort(), ['br.txt', 'deflate.txt', 'gzip.txt']);
  });

  it('the SDK refuses . and .. segments itself, with code invalid_request, sending nothing', async () => {
    const { agent, requests } = await newAgent();
    const before = requests.length;
    for (const path of ['../escape.md', 'a/../../escape.md', './a.md', 'a/.', '', '/']) {
      const e = await expectFailure(agent.knowledge.put(path, 'x'), 400, 'invalid_request');
      assert.ok(e.message.length > 0);
      await expectFailure(agent.knowledge.read(path), 400, 'invalid_request');
      await expectFailure(agent.knowledge.remove(path), 400, 'invalid_request');
    }
    assert.equal(requests.length, before, 'no request was sent');
  });

  // The problem each refusal names, after the field (`path.path: ` or `query.dir: `).
  const DOTS = /: must not contain \. or \.\. segments$/;
  const ABSOLUTE = /: must be relative \(no leading \/\)$/;
  const NUL = /: must not contain NUL$/;
  const BACKSLASH = /: use \/ to separate folders$/;

  describe('the server refuses paths that escape or hide, naming the field (requests sent byte for byte)', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['an encoded .. segment', '%2E%2E/escape.md', DOTS],
      ['an encoded .. in the middle', 'docs/%2e%2e/%2e%2e/escape.md', DOTS],
      ['a literal .. segment', 'docs/../escape.md', DOTS],
      ['an encoded . segment', 'docs/%2E/a.md', DOTS],
      ['an encoded absolute path', '%2Fetc%2Fpasswd', ABSOLUTE],
      ['an absolute path after the slash', '/etc/passwd', ABSOLUTE],
      ['an encoded NUL', 'a%00b.md', NUL],
      ['an encoded backslash', '..%5Cescape.md', BACKSLASH],
    ];
    for (const [name, path, problem] of cases) {
      it(`${name} (${path}) answers 400 invalid_request on put, read and remove, and stores nothing`, async () => {
        const { agent, apiKey } = await newAgent();
        await agent.knowledge.put('docs/a.md', 'a');
        for (const method of ['PUT', 'GET', 'DELETE']) {
          const res = await rawRequest(api.baseURL, method, `/v1/agents/${agent.id}/knowledge/${path}`, {
            apiKey,
            body: method === 'PUT' ? 'payload' : undefined,
            headers: method === 'PUT' ? { 'content-type': 'application/octet-stream' } : {},
          });
          assert.equal(res.status, 400, `${method}: ${JSON.stringify(res.body)}`);
          const { error } = res.body as ErrorJson;
          assert.equal(error.code, 'invalid_request', method);
          assert.match(error.message, /^path\.path: /, `${method}: the message names the field`);
          assert.match(error.message, problem, method);
        }
        assert.deepEqual(entries(await agent.knowledge.list()).map((e) => e.path), ['docs']);
        assert.equal(text(await agent.knowledge.read('docs/a.md')), 'a');
      });
    }

    const dirCases: Array<[string, RegExp]> = [
      ['..', DOTS],
      ['docs/..', DOTS],
      ['%2Fetc', ABSOLUTE],
      ['a%00b', NUL],
    ];
    for (const [dir, problem] of dirCases) {
      it(`listing dir=${dir} answers 400 invalid_request naming query.dir`, async () => {
        const { agent, apiKey } = await newAgent();
        const res = await rawRequest(api.baseURL, 'GET', `/v1/agents/${agent.id}/knowledge?dir=${dir}`, { apiKey });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        const { error } = res.body as ErrorJson;
        assert.equal(error.code, 'invalid_request');
        assert.match(error.message, /^query\.dir: /);
        assert.match(error.message, problem);
      });
    }
  });

  it('concurrent puts of a file and of a file beneath it: one is stored, the other answers 409 path_conflict', async () => {
    const { agent } = await newAgent();
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.allSettled([
        agent.knowledge.put(`r${round}`, 'a file'),
        agent.knowledge.put(`r${round}/inner.md`, 'a file in a folder of the same name'),
      ]);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      assert.equal(refused.length, 1, `round ${round}: exactly one of the two is refused`);
      await expectFailure(Promise.reject((refused[0] as PromiseRejectedResult).reason), 409, 'path_conflict');
      assert.equal((await agent.knowledge.list()).filter((e) => e.path === `r${round}`).length, 1, `round ${round}: one entry`);
    }
  });

  it('a file put while its agent is being deleted does not outlive the agent', async () => {
    const { ws } = await newSdkWorkspace(api);
    for (let round = 0; round < 15; round++) {
      const agent = await ws.agents.create({ name: `doomed ${round}` });
      const [put, deleted] = await Promise.allSettled([agent.knowledge.put('late.md', 'written during delete'), agent.delete()]);
      assert.equal(deleted.status, 'fulfilled');
      if (put.status === 'rejected') await expectFailure(Promise.reject(put.reason), 404, 'agent_not_found');
      const left = await api.db('files').where({ space: `knowledge:${agent.id}` }).count({ n: '*' });
      assert.equal(Number(left[0]!.n), 0, `round ${round}: no file of the deleted agent is left`);
    }
  });

  it('deleting the agent deletes its knowledge files', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('a.md', 'a');
    await agent.knowledge.put('docs/b.md', 'b');
    const space = `knowledge:${agent.id}`;
    assert.equal(Number((await api.db('files').where({ space }).count({ n: '*' }))[0]!.n), 2);
    await agent.delete();
    assert.equal(Number((await api.db('files').where({ space }).count({ n: '*' }))[0]!.n), 0);
    await expectFailure(agent.knowledge.list(), 404, 'agent_not_found');
  });
});
