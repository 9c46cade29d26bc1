/**
 * An agent with an MCP server: the server's tools are offered to the model as `<server>__<tool>`.
 *
 *   EXAMPLE_MCP_URL=https://mcp.example.com/mcp SERVICE_API_KEY=sk_… npx tsx examples/mcp-server.ts
 *
 * EXAMPLE_MCP_URL: a Streamable HTTP MCP endpoint (required). To try it locally, run the MCP
 * project's reference server (`npx @modelcontextprotocol/server-everything streamableHttp`, port
 * 3001, path /mcp) and allow the service to reach loopback (`OUTBOUND_ALLOW_PRIVATE=127.0.0.1/32`).
 * The offline model calls `everything__echo` through the `/tool` line below.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

async function main(): Promise<void> {
  const url = process.env.EXAMPLE_MCP_URL;
  if (!url) throw new Error('set EXAMPLE_MCP_URL to a Streamable HTTP MCP endpoint');
  const ws = new Service();
  const agent = await ws.agents.create({
    name: 'MCP helper',
    instructions: 'Use the tools of the everything server when asked.',
    mcpServers: [{ name: 'everything', url, transport: 'http', timeoutMs: 10_000 }],
  });
  const conversation = await agent.start();
  const turn = conversation.ask('Echo this back to me.\n/tool everything__echo {"message":"hello from MCP"}');
  for await (const event of turn) {
    if (event.type === 'tool') console.log(`tool ${event.name}: ${event.state}${event.state === 'end' ? ` (ok: ${event.ok})` : ''}`);
    if (event.type === 'error') throw new Error(event.message);
  }
  console.log(`reply: ${await turn}`);
  await agent.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
