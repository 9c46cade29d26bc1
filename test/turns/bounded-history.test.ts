import assert from 'node:assert/strict';
import type { Service } from '../../sdk/src';
import { useIsolatedStack } from '../support/isolated-stack';

/** The budget of this test: small, so 300 earlier turns are far over it. */
const BUDGET_TOKENS = 2000;
const TURNS = 300;
const PAD = ' lorem ipsum dolor sit amet'.repeat(4);
const INSTRUCTIONS = 'You are the history test agent. Keep every answer short.';
/** A 1×1 transparent PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

interface WireMessage {
  role: string;
  content: string | Array<{ type: string; text?: string }>;
}

const textOf = (m: WireMessage | undefined) =>
  typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? `<${p.type}>`).join(' ');

describe('Bounded history: a model step sends a window of the conversation', function () {
  this.timeout(90_000);
  // Standard runs the offline model, premium the OpenAI wire server: both under the same small budget.
  const stack = useIsolatedStack({
    model: 'openai',
    worker: 'inline',
    env: { MODEL_STANDARD: 'local:offline', LOCAL_MODEL_DELAY_MS: '0', HISTORY_TOKENS_STANDARD: String(BUDGET_TOKENS), HISTORY_TOKENS_PREMIUM: String(BUDGET_TOKENS) },
  });
  const { api, model } = stack;
  let ws: Service;

  before(async () => {
    ({ ws } = await stack.workspace(1000));
  });

  /** A conversation with `TURNS` earlier turns, written straight to its message log. */
  async function longConversation(grade: 'standard' | 'premium') {
    const agent = await ws.agents.create({ name: `History ${grade}`, instructions: INSTRUCTIONS, grade });
    const conversation = await agent.start();
    const rows = [];
    for (let i = 0; i < TURNS; i++) {
      rows.push({ conversation_id: conversation.id, role: 'user', content: `question ${i}${PAD}` });
      rows.push({ conversation_id: conversation.id, role: 'assistant', content: `answer ${i}${PAD}` });
    }
    await api.db.batchInsert('messages', rows, 200);
    return conversation;
  }

  it('the OpenAI wire server receives the system prompt intact and only the newest turns, within the budget', async () => {
    const conversation = await longConversation('premium');
    model.enqueue({ text: 'Still here.' });
    assert.equal(await conversation.ask('the newest question'), 'Still here.');
    const body = model.requests.at(-1)?.body as { messages: WireMessage[] };
    const [system, first, ...rest] = body.messages;
    assert.equal(system?.role, 'system');
    assert.ok(textOf(system).startsWith(INSTRUCTIONS), 'the system prompt is sent whole, first');
    assert.equal(textOf(rest.at(-1)), 'the newest question');
    assert.equal(textOf(rest.at(-2)), `answer ${TURNS - 1}${PAD}`, 'the newest earlier turn is kept');
    assert.equal(first?.role, 'user', 'the window opens with a user message');
    assert.match(textOf(first), /^\[\d+ earlier messages of this conversation are not shown/);
    assert.ok(body.messages.length < 2 * TURNS / 4, `a window, not the ${2 * TURNS} messages (got ${body.messages.length})`);
    const chars = body.messages.reduce((n, m) => n + textOf(m).length, 0);
    assert.ok(chars <= BUDGET_TOKENS * 4 * 1.1, `about the budget at most (${chars} characters)`);
  });

  it('a 300-turn conversation keeps working with the offline model, its input bounded', async () => {
    const conversation = await longConversation('standard');
    const reply = await conversation.ask('and now?');
    assert.equal(reply, '(offline model) You said: and now?');
    const turn = await api.db('turns').where({ conversation_id: conversation.id }).first<{ usage: { inputTokens: number } }>('usage');
    assert.ok(turn.usage.inputTokens <= BUDGET_TOKENS * 1.1, `input within the budget (${turn.usage.inputTokens} tokens)`);
  });

  it("only this turn's images are sent as image parts; an earlier one is referenced by its path", async () => {
    const agent = await ws.agents.create({ name: 'Pictures', grade: 'premium' });
    const conversation = await agent.start();
    model.enqueue({ text: 'A dot.' }, { text: 'Yes.' });
    await conversation.ask('what is this?', { attachments: [{ kind: 'image', name: 'dot.png', mimeType: 'image/png', data: PNG }] });
    const firstAsk = model.requests.at(-1)?.body as { messages: WireMessage[] };
    assert.match(textOf(firstAsk.messages.at(-1)), /<image_url>/, 'this turn sends the image');
    await conversation.ask('and again?');
    const secondAsk = model.requests.at(-1)?.body as { messages: WireMessage[] };
    const earlier = secondAsk.messages.find((m) => textOf(m).includes('what is this?'));
    assert.doesNotMatch(textOf(earlier), /<image_url>/, 'the earlier image is not re-sent');
    assert.match(textOf(earlier), /earlier attached an image, saved in the conversation drive at attachments\/.+dot\.png/);
  });
});
