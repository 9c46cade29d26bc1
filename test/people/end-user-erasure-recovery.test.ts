import assert from 'node:assert/strict';
import { randomToken } from '../../domain/ids';
import { scanEveryColumn, waitErasureDone, waitTurnWorkflowsGone } from '../support/end-users';
import { useIsolatedStack } from '../support/isolated-stack';

const TURNS = 12;

/**
 * A worker killed with SIGKILL in the middle of an erasure (one turn per batch, so there is a
 * middle): another worker finishes it, everything is erased, each kind counted once, and the
 * receipt is written once.
 */
describe('an erasure survives a worker killed mid-way', function () {
  this.timeout(240_000);
  const stack = useIsolatedStack({ worker: 'process', env: { END_USER_ERASURE_BATCH: '1' } });
  const { api } = stack;

  it('SIGKILL after the first batch: a new worker finishes, nothing of theirs is left, counts and receipt once', async () => {
    const { ws, apiKey } = await stack.workspace(1000);
    const endUser = `kill-${randomToken(10)}`;
    const said = Array.from({ length: TURNS }, (_, i) => `message ${i} ${randomToken(10)}`);
    const conv = await (await ws.agents.create({ name: 'Erasure' })).start({ endUser: { id: endUser } });
    for (const text of said) await conv.ask(text);
    const turnIds = (await ws.endUser(endUser).export()).conversations.flatMap((c) => c.turns.map((t) => t.id));
    assert.equal(turnIds.length, TURNS);

    const erasure = await ws.endUser(endUser).erase();
    const row = () => api.db('end_user_erasures').where({ id: erasure.id }).first();
    let atKill: { status: string; counts: { turns?: number } } | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 5))) {
      const now = await row();
      if ((now.counts.turns ?? 0) >= 1) {
        await stack.killWorkers();
        atKill = now;
        break;
      }
    }
    assert.ok(atKill, 'the first batch was seen');
    assert.equal(atKill.status, 'running');
    assert.ok((atKill.counts.turns ?? 0) < TURNS, `killed mid-way: ${JSON.stringify(atKill.counts)}`);

    await stack.startWorker();
    const done = await waitErasureDone(api.baseURL, apiKey, erasure.id, 180_000);
    assert.deepEqual(
      [done.counts.conversations, done.counts.turns, done.counts.turnWorkflows, done.counts.messages, done.counts.secrets],
      [1, TURNS, TURNS, 2 * TURNS, 0],
    );
    const receipts = await api.db('audit_events').where({ action: 'endUserErased' }).whereRaw(`targets->>'erasureId' = ?`, [erasure.id]);
    assert.equal(receipts.length, 1, 'one receipt');
    assert.deepEqual(receipts[0].detail.counts, done.counts);
    assert.deepEqual(await waitTurnWorkflowsGone(api.temporal, turnIds), []);
    assert.deepEqual(await scanEveryColumn(api.db, [endUser, ...said]), []);
  });
});
