import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildEmbed, LOADER_GZIP_BUDGET } from '../../embed/build';
import { renderChatPage, renderNotFoundPage, type HostedPageConfig } from '../../embed/page-template';

const config: HostedPageConfig = {
  agentId: 'agt_123',
  name: 'Support',
  greeting: 'Hi! Ask me anything.',
  apiBase: 'http://127.0.0.1:8080',
  token: 'agt_pk_abc',
  mode: 'prod',
};

/** The config JSON exactly as chat.js reads it: the text of the `#ha-config` element. */
function configOf(html: string): unknown {
  const match = /<script type="application\/json" id="ha-config">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(match, 'no #ha-config element');
  return JSON.parse(match[1] ?? '');
}

describe('embed build', () => {
  let outdir: string;
  before(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'embed-build-'));
  });
  after(() => rmSync(outdir, { recursive: true, force: true }));

  it('writes v1.js, chat.js, chat.css and the docs page Redoc bundle, and v1.js stays within its 4 KB gzip budget', async () => {
    const files = await buildEmbed({ outdir });
    assert.deepEqual(files.map((f) => path.basename(f.file)).sort(), ['chat.css', 'chat.js', 'redoc.standalone.js', 'v1.js']);
    for (const f of files) assert.equal(readFileSync(f.file).length, f.bytes);
    const loader = files.find((f) => f.file.endsWith('v1.js'));
    assert.ok(loader && loader.gzipBytes <= LOADER_GZIP_BUDGET, `v1.js is ${loader?.gzipBytes} bytes gzip`);
  });

  it('v1.js is one self-contained classic script: no imports, nothing left to load', () => {
    const code = readFileSync(path.join(outdir, 'v1.js'), 'utf8');
    assert.match(code, /^"use strict";\(\(\)=>\{/);
    assert.doesNotMatch(code, /\brequire\(|\bimport[ ({]/);
    assert.match(code, /:host\{all:initial!important/, 'the shadow-root styles are inlined');
  });
});

describe('hosted chat page HTML', () => {
  const evil = '</script><script>alert(1)</script>';

  it('a hostile agent name or greeting cannot end the config script or add markup', () => {
    const hostile = { ...config, name: `${evil}<b>&'"`, greeting: `${evil}<!-- \u2028\u2029` };
    const html = renderChatPage(hostile);
    assert.ok(!html.includes('<script>alert(1)'), 'injected script element');
    assert.ok(!html.includes('<b>'), 'injected markup');
    assert.equal(html.match(/<script/g)?.length, 2, 'only the config and chat.js scripts');
    assert.equal(html.match(/<\/script>/g)?.length, 2);
    assert.ok(!/[\u2028\u2029]/.test(html));
    assert.deepEqual(configOf(html), hostile, 'the page still reads the exact config');
    assert.match(html, /<title>&#60;\/script&#62;&#60;script&#62;alert\(1\)/);
  });

  it('is a complete English document linking only same-origin assets, with no inline script or style', () => {
    const html = renderChatPage(config);
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(html, /<title>Support<\/title>/);
    assert.match(html, /<link rel="stylesheet" href="\/embed\/assets\/chat.css">/);
    assert.match(html, /<script src="\/embed\/assets\/chat.js" defer><\/script>/);
    const markup = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '');
    assert.doesNotMatch(markup, /style=|<style|\son[a-z]+=|https?:\/\//, 'the CSP would block it');
    assert.match(html, /<main[^>]*>/);
    assert.match(html, /role="log" aria-live="polite"/);
  });

  it('the 404 page is plain HTML without scripts', () => {
    const html = renderNotFoundPage();
    assert.match(html, /<html lang="en">/);
    assert.doesNotMatch(html, /<script/);
  });
});
