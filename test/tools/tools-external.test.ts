import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TurnEvent } from '../../sdk/src';
import { capturingLogger } from '../support/capture-log';
import { historyText } from '../support/history';
import { startEverything, type EverythingServer } from '../support/mcp-everything';
import { useIsolatedStack } from '../support/isolated-stack';

const SECRET = 'sk_live_7d2f9a0c4b8e1f36a5d7';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local API an HTTP tool calls: records requests and echoes the Authorization header back. */
async function startOrdersApi(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const status = req.url?.startsWith('/orders/404') ? 404 : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ order: req.url, status: status === 200 ? 'shipped' : 'missing', echoedAuth: req.headers.authorization }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

const toolLog = (events: TurnEvent[]) =>
  events.filter((e) => e.type === 'tool' || e.type === 'file' || e.type === 'start' || e.type === 'done' || e.type === 'error').map((e) =>
    e.type === 'tool' ? `tool:${e.name}:${e.state}${e.state === 'end' ? `:${e.ok}` : ''}` : e.type,
  );

describe('HTTP tools and MCP servers with secrets, through a scripted model', function () {
  this.timeout(60_000);
  const log = capturingLogger();
  const stack = useIsolatedStack({
    model: 'openai',
    // Its own process, logging at trace: its output is searched for the secret too.
    worker: 'process',
    // The tests' servers listen on loopback, which is refused unless the operator allows it.
    env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8', LOG_LEVEL: 'trace' },
    api: () => ({ logger: log.logger }),
  });
  const { api, model } = stack;
  let orders: Awaited<ReturnType<typeof startOrdersApi>>;
  let mcpHttp: EverythingServer;
  let mcpSse: EverythingServer;

  before(async () => {
    // The MCP server's environment holds the secret, so its get-env tool returns it: results must be masked.
    [orders, mcpHttp, mcpSse] = await Promise.all([startOrdersApi(), startEverything('http', { LEAKY_TOKEN: SECRET }), startEverything('sse')]);
  });
  after(async () => {
    await Promise.all([orders?.close(), mcpHttp?.stop(), mcpSse?.stop()]);
  });

  async function agentWithTools() {
    const { ws, apiKey } = await stack.workspace(100);
    const agent = await ws.agents.create({
      name: 'Orders',
      secrets: [{ name: 'ORDERS_TOKEN', scope: 'fixed', required: true }],
      httpTools: [
        {
          name: 'lookup_order',
          description: 'Look up an order by id',
          method: 'GET',
          url: `${orders.url}/orders/{id}`,
          headers: { Authorization: 'Bearer {{secrets.ORDERS_TOKEN}}' },
          params: { id: { type: 'string', in: 'path', required: true }, verbose: { type: 'boolean' } },
          secrets: ['ORDERS_TOKEN'],
        },
      ],
      mcpServers: [
        { name: 'every', url: mcpHttp.url },
        { name: 'legacy', url: mcpSse.url, transport: 'sse' },
        { name: 'gone', url: 'http://127.0.0.1:9/mcp', timeoutMs: 1000 },
      ],
    });
    const before = await agent.start();
    assert.equal(before.ready, false, 'the required secret is missing');
    await agent.bind({ secrets: { ORDERS_TOKEN: SECRET } });
    const conv = await agent.start();
    assert.equal(conv.ready, true);
    return { ws, agent, conv, apiKey };
  }

  async function run(conv: { ask(t: string): AsyncIterable<TurnEvent> }, text: string) {
    const events: TurnEvent[] = [];
    for await (const e of conv.ask(text)) events.push(e);
    return events;
  }

  /** The tool results the model received in its last request (OpenAI `role: tool` messages). */
  function toolMessages(): string[] {
    const body = model.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    return body.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  }

  it('an HTTP tool gets its path, query and secret header; the model sees the status and body, the secret masked', async () => {
    const { conv } = await agentWithTools();
    model.enqueue({ toolCalls: [{ name: 'lookup_order', args: { id: 'A-42', verbose: true } }] }, { text: 'Your order shipped.' });
    const events = await run(conv, 'where is order A-42?');
    assert.deepEqual(toolLog(events), ['start', 'tool:lookup_order:start', 'tool:lookup_order:end:true', 'done']);
    const call = orders.seen.at(-1)!;
    assert.equal(call.method, 'GET');
    assert.equal(call.url, '/orders/A-42?verbose=true');
    assert.equal(call.headers.authorization, `Bearer ${SECRET}`, 'the secret reached the tool');
    const [result] = toolMessages();
    assert.match(result!, /HTTP 200/);
    assert.match(result!, /shipped/);
    assert.ok(!result!.includes(SECRET), 'the echoed secret was masked before the model saw it');
    assert.match(result!, /\[secret:ORDERS_TOKEN\]/);
    const offered = (model.requests.at(-1)?.body as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools;
    const lookup = offered.find((t) => t.function.name === 'lookup_order');
    assert.deepEqual(lookup?.function.parameters, {
      type: 'object',
      properties: { id: { type: 'string' }, verbose: { type: 'boolean' } },
      required: ['id'],
      additionalProperties: false,
    });
  });

  it('a non-2xx answer is a tool result with ok false, and the turn goes on', async () => {
    const { conv } = await agentWithTools();
    model.enqueue({ toolCalls: [{ name: 'lookup_order', args: { id: '404' } }] }, { text: 'I could not find it.' });
    const events = await run(conv, 'order 404?');
    assert.deepEqual(toolLog(events), ['start', 'tool:lookup_order:start', 'tool:lookup_order:end:false', 'done']);
    assert.match(toolMessages()[0]!, /HTTP 404/);
  });

  for (const [server, transport] of [['every', 'Streamable HTTP'], ['legacy', 'SSE']] as const) {
    it(`MCP over ${transport}: tools are offered under server-scoped names, arguments arrive, results reach the model`, async () => {
      const { conv } = await agentWithTools();
      const offeredBefore = model.requests.length;
      model.enqueue({ toolCalls: [{ name: `${server}__get-sum`, args: { a: 2.5, b: 40 } }] }, { text: 'It is 42.5.' });
      const events = await run(conv, 'add 2.5 and 40');
      assert.deepEqual(toolLog(events), ['start', `tool:${server}.get-sum:start`, `tool:${server}.get-sum:end:true`, 'done']);
      assert.match(toolMessages()[0]!, /42\.5/);
      const names = (model.requests[offeredBefore]?.body as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
      assert.ok(names.includes('every__echo') && names.includes('legacy__echo'), names.join(','));
      assert.ok(!names.some((n) => n.startsWith('gone__')), 'an unreachable server offers nothing and does not fail the turn');
    });
  }

  it('a failing MCP tool is a tool error the model sees: tool end ok false, the turn finishes', async () => {
    const { conv } = await agentWithTools();
    model.enqueue({ toolCalls: [{ name: 'every__get-resource-reference', args: { resourceId: 0 } }] }, { text: 'That failed.' });
    const events = await run(conv, 'fetch resource 0');
    assert.deepEqual(toolLog(events), ['start', 'tool:every.get-resource-reference:start', 'tool:every.get-resource-reference:end:false', 'done']);
  });

  it("the secret's value appears in no API answer, event, message, log line or Temporal history", async () => {
    const { ws, agent, conv, apiKey } = await agentWithTools();
    model.enqueue(
      { toolCalls: [{ name: 'lookup_order', args: { id: 'S-1' } }, { name: 'every__get-env', args: {} }] },
      { text: 'Done.' },
    );
    const events = await run(conv, 'check S-1');
    const results = toolMessages();
    assert.match(results[1]!, /LEAKY_TOKEN/, 'the MCP tool answered with its environment');
    assert.match(results[1]!, /\[secret:ORDERS_TOKEN\]/, 'and the secret in it was masked');
    const turnId = events[0]?.type === 'start' ? events[0].turnId : '';
    const answers = [
      await agent.get(),
      await agent.versions(),
      await ws.agents.list(),
      await conv.get(),
      await conv.messages(),
      await ws.agent(agent.id).connections(), // on a returned Agent, `connections` is the record field
      await agent.conversations(),
    ];
    const replay = await fetch(`${api.baseURL}/v1/turns/${turnId}/events`, { headers: { authorization: `Bearer ${apiKey}` } });
    const everything = [
      JSON.stringify(answers),
      JSON.stringify(events),
      await replay.text(),
      log.text(),
      stack.worker.output(),
      await historyText(api.temporal, `turn-${turnId}`),
    ];
    assert.ok(log.text().length > 0, 'the API logged');
    assert.ok(stack.worker.output().length > 0, 'the worker logged');
    for (const [i, text] of everything.entries()) assert.ok(!text.includes(SECRET), `the secret leaked in source #${i}`);
    const rows = await api.db('turn_events').where({ turn_id: turnId });
    assert.ok(!JSON.stringify(rows).includes(SECRET));
  });
});
