import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { admitNewConnections } from '../../api/limits/connection-admission';

/** A request as the gate sees it: its connection, and a name to tell it by. */
interface FakeSocket {
  destroyed: boolean;
}
const request = (socket: FakeSocket, name: string) => ({ socket: socket as unknown as Socket, name }) as unknown as IncomingMessage & { name: string };
const response = {} as ServerResponse;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('connection admission: a storm of new connections is started a few per turn', () => {
  function harness(perTurn: number) {
    const started: string[] = [];
    const gate = admitNewConnections((req) => {
      started.push((req as IncomingMessage & { name: string }).name);
    }, perTurn);
    return { started, send: (socket: FakeSocket, name: string) => gate(request(socket, name), response) };
  }

  it('a connection already served starts at once while new ones wait, in arrival order, a few per turn', async () => {
    const { started, send } = harness(3);
    const established = { destroyed: false };
    send(established, 'established-1');
    await nextTurn();
    await nextTurn();
    started.length = 0;
    const fresh = Array.from({ length: 10 }, () => ({ destroyed: false }));
    fresh.forEach((socket, i) => send(socket, `new-${i}`));
    send(established, 'established-2');
    assert.deepEqual(started, ['new-0', 'new-1', 'new-2', 'established-2'], 'the first three start at once, the served connection is not queued');
    await nextTurn();
    assert.deepEqual(started.slice(4), ['new-3', 'new-4', 'new-5'], 'the next turn starts the next three');
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.deepEqual(started.slice(4), Array.from({ length: 7 }, (_, i) => `new-${i + 3}`), 'every one starts, in order');
  });

  it('with no storm a new connection starts at once; a request pipelined behind a waiting one waits behind it; a departed client is dropped', async () => {
    const { started, send } = harness(1);
    const a = { destroyed: false };
    const b = { destroyed: false };
    const c = { destroyed: false };
    send(a, 'a-1');
    assert.deepEqual(started, ['a-1'], 'a lone new connection starts at once');
    send(b, 'b-1');
    send(b, 'b-2');
    send(c, 'c-1');
    c.destroyed = true;
    assert.deepEqual(started, ['a-1']);
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.deepEqual(started, ['a-1', 'b-1', 'b-2'], 'b-2 follows b-1; c left before its turn and is never started');
  });
});
