import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpTool } from '../../sdk/src';

/** A refunds API for the approval tests' HTTP tool: it records the body of each refund it was asked for. */
export async function startRefunds(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ refunded: true, receipt: 'R-1001' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

/** The HTTP tool a person must approve: `refund(orderId, amount)`, posting to `url`/refunds. */
export const refundTool = (url: string): HttpTool => ({
  name: 'refund',
  description: 'Refund an order',
  method: 'POST',
  url: `${url}/refunds`,
  params: { orderId: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  approval: 'required',
});
