import assert from 'node:assert/strict';
import { assignMcpToolNames, mcpToolName } from '../../activities/tools/mcp/names';
import { mcpResultToToolResult } from '../../activities/tools/mcp/results';

/** MCP tool naming and result rendering, without a server. */

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  it('is <server>__<tool> when that is already valid', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'github__create_issue');
    assert.equal(mcpToolName('everything', 'get-sum'), 'everything__get-sum');
  });

  it('replaces invalid characters and adds a stable hash suffix', () => {
    const name = mcpToolName('files', 'read.file/v2');
    assert.match(name, VALID);
    assert.match(name, /^files__read_file_v2_[0-9a-f]{8}$/);
    assert.equal(mcpToolName('files', 'read.file/v2'), name, 'stable');
  });

  it('keeps tools apart that sanitise to the same text', () => {
    const a = mcpToolName('s', 'a.b');
    const b = mcpToolName('s', 'a/b');
    const c = mcpToolName('s', 'a_b');
    assert.equal(c, 's__a_b');
    assert.notEqual(a, b);
    assert.notEqual(a, c);
    assert.notEqual(b, c);
  });

  it('handles non-ASCII and emoji (one _ per code point)', () => {
    const name = mcpToolName('srv', 'héllo😀');
    assert.match(name, VALID);
    assert.match(name, /^srv__h_llo__[0-9a-f]{8}$/);
  });

  it('cuts long names to 64 characters with a hash suffix that tells them apart', () => {
    const server = 'a'.repeat(40);
    const one = mcpToolName(server, `${'t'.repeat(40)}_one`);
    const two = mcpToolName(server, `${'t'.repeat(40)}_two`);
    for (const n of [one, two]) {
      assert.match(n, VALID);
      assert.equal(n.length, 64);
      assert.ok(n.startsWith(`${server}__`));
    }
    assert.notEqual(one, two);
  });

  it('keeps a name of exactly 64 valid characters as is', () => {
    const server = 's'.repeat(30);
    const tool = 't'.repeat(32);
    assert.equal(mcpToolName(server, tool), `${server}__${tool}`);
  });

  it('deduplicates names that still collide, first one keeps the plain name', () => {
    const names = assignMcpToolNames([
      { server: 'a', tool: 'b__c' },
      { server: 'a__b', tool: 'c' },
      { server: 'x', tool: 'y' },
      { server: 'x', tool: 'y' },
      { server: 'x', tool: 'y' },
    ]);
    assert.equal(names[0], 'a__b__c');
    assert.match(names[1]!, /^a__b__c_[0-9a-f]{8}$/);
    assert.equal(names[2], 'x__y');
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.match(n, VALID);
    assert.deepEqual(
      assignMcpToolNames([
        { server: 'a', tool: 'b__c' },
        { server: 'a__b', tool: 'c' },
      ]),
      names.slice(0, 2),
      'stable for the same listing',
    );
  });
});

describe('MCP results', () => {
  it('joins text and summarises other content', () => {
    const r = mcpResultToToolResult(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', mimeType: 'image/png', data: Buffer.from('12345').toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: Buffer.from('abc').toString('base64') },
          { type: 'resource', resource: { uri: 'file:///x.txt', mimeType: 'text/plain', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///x.bin', blob: Buffer.from('zz').toString('base64') } },
          { type: 'resource_link', uri: 'file:///y', name: 'y' },
        ],
      },
      's.t',
    );
    assert.deepEqual(r, {
      ok: true,
      content: [
        'first',
        '[image image/png, 5 bytes]',
        '[audio audio/wav, 3 bytes]',
        '[resource file:///x.txt, text/plain]\ninside',
        '[resource file:///x.bin, binary, 2 bytes]',
        '[resource link file:///y "y"]',
      ].join('\n'),
    });
  });

  it('isError is ok: false with the text; empty results say so', () => {
    assert.deepEqual(mcpResultToToolResult({ content: [{ type: 'text', text: 'bad' }], isError: true }, 's.t'), { ok: false, content: 'bad' });
    assert.deepEqual(mcpResultToToolResult({ content: [], isError: true }, 's.t'), { ok: false, content: 's.t reported an error' });
    assert.deepEqual(mcpResultToToolResult({ content: [] }, 's.t'), { ok: true, content: '(no content)' });
    assert.deepEqual(mcpResultToToolResult({ content: [], structuredContent: { n: 1 } }, 's.t'), { ok: true, content: '{"n":1}' });
  });

  it('caps the content at 16 000 characters with a note', () => {
    const r = mcpResultToToolResult({ content: [{ type: 'text', text: 'x'.repeat(20_000) }] }, 's.t');
    assert.ok(r.content.startsWith('x'.repeat(16_000)));
    assert.match(r.content, /\[truncated: 4000 more characters\]$/);
    assert.ok(r.content.length < 16_100);
  });
});
