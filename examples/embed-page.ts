/**
 * A customer's web page with the chat bubble: publish an agent to production, then serve a page
 * whose only addition is the one-line script tag.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/embed-page.ts          # then open http://shop.localhost:3000
 *   SERVICE_API_KEY=sk_… npx tsx examples/embed-page.ts --check  # serve, fetch the page and v1.js once, exit
 *
 * EXAMPLE_PORT: the page's port (default 3000). The script tag names only the agent id: the embed
 * resolves the agent's public token itself, so nothing secret is in the page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Service, ServiceError } from '@hosted-agents/sdk';

const baseURL = (process.env.SERVICE_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const check = process.argv.includes('--check');

function page(agentId: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Acme Shop</title></head>
<body>
  <h1>Acme Shop</h1>
  <p>Questions about an order? Use the chat bubble in the corner.</p>
  <!-- The one line a customer adds to their site: -->
  <script src="${baseURL}/embed/v1.js" data-agent-id="${agentId}" data-title="Acme help" defer></script>
</body>
</html>
`;
}

async function main(): Promise<void> {
  const ws = new Service({ baseURL });
  const agent = await ws.agents.create({ name: 'Acme help', role: 'freelancer', greeting: 'Hi! Ask me about your order.' });
  // Only freelancers are published; a deploy takes the version id (ver_…) the Agent carries.
  const prod = await ws.agents.deployToProd(agent.versionId);
  console.log(`agent ${agent.id} is live at ${prod.url}`);

  const html = page(agent.id);
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(check ? 0 : Number(process.env.EXAMPLE_PORT ?? 3000), '127.0.0.1', resolve));
  const url = `http://shop.localhost:${(server.address() as AddressInfo).port}`;
  console.log(`the shop's page: ${url}`);

  if (check) {
    const served = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
    const script = await fetch(`${baseURL}/embed/v1.js`);
    const info = await fetch(`${baseURL}/v1/public/agents/${agent.id}`);
    console.log(`page has the tag: ${served.includes(`data-agent-id="${agent.id}"`)}; v1.js: ${script.status}; public agent: ${info.status}`);
    server.close();
    await agent.delete();
    if (!served.includes(agent.id) || !script.ok || !info.ok) process.exit(1);
  }
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
