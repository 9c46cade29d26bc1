import assert from 'node:assert/strict';
import { fileTools } from '../../activities/tools/builtin-files';
import { dataTool } from '../../activities/tools/builtin-data';
import { knowledgeTool } from '../../activities/tools/builtin-knowledge';
import { planTool } from '../../activities/tools/builtin-plan';
import { webFetchBuiltIn } from '../../activities/tools/sources';
import type { Repositories } from '../../db/repositories';
import { createAgentSchema } from '../../domain/agent';
import { builtInToolNames, fileToolsWithoutDrive, modelToolName, unknownToolMessage } from '../../domain/tool-catalogue';

/** The naming rule of docs/tools.md (the model calls `a.b` as `a_b`; events show `a.b`), and the 400s about tools. */

describe('built-in tool names', () => {
  // Building the tools touches nothing: the repositories and the fetch are used only by a call.
  const repos = {} as Repositories;
  const all = [...fileTools(repos), dataTool(repos), knowledgeTool({ repos }), planTool(async () => {}), webFetchBuiltIn(async () => new Response())];

  it('every built-in is offered to the model under its catalogue name with the dot made an underscore', () => {
    assert.deepEqual(all.map((t) => t.name).sort(), [...builtInToolNames].sort(), 'one tool per catalogue entry');
    for (const tool of all) assert.equal(tool.definition.name, modelToolName(tool.name), tool.name);
    assert.equal(modelToolName('files.write'), 'files_write');
    assert.equal(modelToolName('plan'), 'plan');
  });

  it('an unknown tool is refused with the valid names, and a model name is pointed at its catalogue name', () => {
    const plain = unknownToolMessage('nope');
    for (const name of builtInToolNames) assert.ok(plain.includes(name), `${name} listed`);
    assert.match(plain, /^unknown tool "nope"; the built-in tools are files\.read, /);
    assert.match(unknownToolMessage('files_write'), /^unknown tool "files_write"; "files\.write" is its name in tools/);
    const parsed = createAgentSchema.safeParse({ name: 'x', tools: ['web_fetch'] });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ['tools', 0]);
    assert.match(parsed.error?.issues[0]?.message ?? '', /"web\.fetch" is its name in tools.*plan/);
  });

  it('file tools without a drive are refused at create, naming filesystem and saying to set it to drive', () => {
    assert.equal(fileToolsWithoutDrive({ filesystem: 'drive', tools: ['files.read'] }), undefined);
    assert.equal(fileToolsWithoutDrive({ filesystem: 'none', tools: ['web.fetch', 'plan'] }), undefined);
    const parsed = createAgentSchema.safeParse({ name: 'x', tools: ['plan', 'files.write', 'files.read'] });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ['filesystem']);
    assert.equal(
      parsed.error?.issues[0]?.message,
      `is "none", but tools has files.write, files.read, which act on the conversation's drive: set filesystem: "drive" (or remove the file tools)`,
    );
    assert.equal(createAgentSchema.safeParse({ name: 'x', filesystem: 'drive', tools: ['files.write'] }).success, true);
  });

  it('an HTTP tool may not take the name the model calls a built-in by', () => {
    const httpTool = { name: 'files_write', description: 'd', method: 'POST', url: 'https://example.com/x' };
    const parsed = createAgentSchema.safeParse({ name: 'x', filesystem: 'drive', tools: ['files.write'], httpTools: [httpTool] });
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error?.issues[0]?.path, ['httpTools', 0, 'name']);
    assert.match(parsed.error?.issues[0]?.message ?? '', /the name the model calls the built-in tool files\.write by/);
    assert.equal(createAgentSchema.safeParse({ name: 'x', httpTools: [httpTool] }).success, true, 'without that built-in there is no clash');
  });
});
