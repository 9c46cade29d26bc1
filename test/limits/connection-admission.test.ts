import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import net from 'node:net';
import { startTestApi, type TestApi } from '../support/api';

const REQUEST = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const STORM = 40;

function open(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with the first bytes the server sends on `socket`. */
const firstAnswer = (socket: net.Socket) => new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));

/**
 * Opens `count` connections and resolves once the server (this process) has accepted every one:
 * a connection accepted later would be read later, and the storm would not arrive in one turn.
 */
async function openAccepted(port: number, count: number): Promise<net.Socket[]> {
  const accepted = new Set<number | undefined>();
  let allAccepted: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allAccepted = resolve));
  let sockets: net.Socket[] = [];
  const onAccept = (message: unknown) => {
    accepted.add((message as { socket: net.Socket }).socket.remotePort);
    if (sockets.length === count && sockets.every((s) => accepted.has(s.localPort))) allAccepted();
  };
  subscribe('net.server.socket', onAccept);
  try {
    sockets = await Promise.all(Array.from({ length: count }, () => open(port)));
    if (sockets.every((s) => accepted.has(s.localPort))) allAccepted();
    await done;
    return sockets;
  } finally {
    unsubscribe('net.server.socket', onAccept);
  }
}

/**
 * The real API server (api/server/server.ts), not the gate alone (unit/connection-admission.test.ts): a
 * storm of new connections whose first requests all arrive together, and a request on a connection
 * the API has served before arriving after all of them.
 */
describe('connection admission: the API starts a storm of new connections a few per turn', function () {
  this.timeout(30_000);
  let api: TestApi;
  before(async () => (api = await startTestApi()));
  after(() => api?.stop());

  it('a request on a connection served before is answered among the first, though it arrived after the whole storm', async () => {
    const port = Number(new URL(api.baseURL).port);
    const established = await open(port);
    established.write(REQUEST);
    assert.match(await firstAnswer(established), /^HTTP\/1\.1 200/);
    const storm = await openAccepted(port, STORM);

    const order: string[] = [];
    const answered = [
      ...storm.map((socket, i) => firstAnswer(socket).then((a) => order.push(`storm-${i} ${a.slice(0, 12)}`))),
      firstAnswer(established).then((a) => order.push(`established ${a.slice(0, 12)}`)),
    ];
    for (const socket of storm) socket.write(REQUEST);
    established.write(REQUEST);
    // Block this (the server's) event loop for a moment, so that when it next polls every request
    // is there to be read in that one turn, the established connection's last.
    const until = performance.now() + 20;
    while (performance.now() < until) {
      // waiting on purpose
    }
    await Promise.all(answered);
    for (const socket of [established, ...storm]) socket.destroy();

    assert.ok(order.every((line) => line.endsWith('HTTP/1.1 200')), order.join(', '));
    // Started all in that turn, the storm's requests were all answered before it (41 of 41). Eight
    // are started per turn, and a connection served before is not queued behind the rest.
    const position = order.findIndex((line) => line.startsWith('established')) + 1;
    assert.ok(position > 1 && position <= 16, `the established connection's answer came ${position} of ${STORM + 1}: ${order.join(', ')}`);
  });
});
