import assert from 'node:assert/strict';
import { buildSystemPrompt } from '../../activities/prompt';
import { agentConfigSchema } from '../../domain/agent';

const now = new Date('2026-11-21T10:00:00Z');
const agent = (extra: Record<string, unknown> = {}) => agentConfigSchema.parse({ name: 'Ada', instructions: 'Answer in French.', ...extra });

describe('system prompt assembly', () => {
  it('starts with the instructions and names the agent and the time', () => {
    const p = buildSystemPrompt({ agent: agent(), parameters: {}, now });
    assert.ok(p.startsWith('Answer in French.'));
    assert.match(p, /Your name is Ada\. The current time is 2026-11-21T10:00:00\.000Z\./);
    assert.doesNotMatch(p, /Playbooks|Parameters|Files/);
  });

  it('falls back to a neutral instruction when there is none', () => {
    assert.ok(buildSystemPrompt({ agent: agent({ instructions: '  ' }), parameters: {}, now }).startsWith('You are Ada, a helpful assistant.'));
  });

  it('gives each workflow as a playbook with its "when"', () => {
    const p = buildSystemPrompt({
      agent: agent({ workflows: [{ name: 'refund', when: 'a customer asks for a refund', content: '1. Check the order.\n2. Refund.' }] }),
      parameters: {},
      now,
    });
    assert.match(p, /## Playbooks\n\nFollow a playbook when its "when" applies/);
    assert.match(p, /### refund\nWhen: a customer asks for a refund\n\n1\. Check the order\.\n2\. Refund\./);
  });

  it('lists parameter values and the files the agent can see', () => {
    const p = buildSystemPrompt({
      agent: agent(),
      parameters: { customer: 'Grace', tier: 'pro' },
      files: { drive: ['notes.md'], knowledge: ['policies/returns.md'] },
      now,
    });
    assert.match(p, /## Parameters of this conversation\n- customer: Grace\n- tier: pro/);
    assert.match(p, /## Files you can see\nConversation drive:\n- notes\.md\nKnowledge:\n- policies\/returns\.md/);
  });
});
