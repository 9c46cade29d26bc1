import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { newSdkWorkspace, type SdkWorkspace } from '../support/sdk';

describe('Files and data lifecycle: signed files and deleted agents', function () {
  this.timeout(60_000);
  const api = useTestApi();
  let sdk: SdkWorkspace;
  before(async () => {
    sdk = await newSdkWorkspace(api);
  });

  it('an .html file a model wrote is served by its signed URL as a sandboxed attachment that leaks no referrer', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Writer', filesystem: 'drive', tools: ['files.write'] });
    const conversation = await agent.start();
    const html = '<html><body><script>fetch("/v1/agents")</script><a href="https://example.com">x</a></body></html>';
    const reply = await conversation.ask(`/tool files_write ${JSON.stringify({ path: 'page.html', content: html })}`);
    assert.match(reply, /wrote \d+ bytes to page.html/);
    for (const download of [false, true]) {
      const served = await fetch(await conversation.fileUrl('page.html', { download }));
      assert.equal(served.status, 200);
      assert.equal(await served.text(), html);
      assert.match(served.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(served.headers.get('content-disposition') ?? '', /^attachment; filename="page.html"/, 'never shown in place');
      assert.match(served.headers.get('content-security-policy') ?? '', /^sandbox\b/);
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(served.headers.get('referrer-policy'), 'no-referrer');
    }
  });

  it("deleting an agent deletes its conversations' files, and their signed URLs stop working", async () => {
    const agent = await sdk.ws.agents.create({ name: 'Doomed' });
    const conversation = await agent.start();
    await conversation.writeFile('notes/secret.md', '# private');
    const url = await conversation.fileUrl('notes/secret.md', { ttl: 600 });
    assert.equal((await fetch(url)).status, 200);
    await agent.delete();
    assert.equal((await fetch(url)).status, 404, 'the link of a deleted agent answers 404');
    const left = await api.db('files').where({ space: `drive:${conversation.id}` }).count<Array<{ count: string }>>('* as count');
    assert.equal(Number(left[0]?.count), 0, 'no file of the drive is left behind');
  });
});
