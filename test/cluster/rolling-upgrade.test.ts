import assert from 'node:assert/strict';
import path from 'node:path';
import { Service, type TurnEvent } from '../../sdk/src';
import { createDb, type Db } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories } from '../../db/repositories';
import { randomToken } from '../../domain/ids';
import { ChildProc } from '../../harness/child';
import { freshDatabase, type FreshDatabase } from '../../harness/database';
import { kill, type Proc, processEnv, spawnProcess } from '../../harness/fault-stack';
import { checkoutPreviousRelease, type PreviousRelease } from '../../harness/previous-release';
import { freePort } from '../../infra/temporal-dev-server';
import { fixture } from '../support/fixture';
import { waitFor } from '../support/wait';

const MESSAGE = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');

interface Streamed {
  turnId: string;
  events: TurnEvent[];
}

/**
 * A rolling upgrade as docs/operations.md orders it (migrate, then workers one by one, then the
 * API): two workers of the previous release's code serve turns and an interval schedule; while
 * turns stream, each is replaced by a worker of this checkout. Every turn ends once, with one
 * reply and one debit, and every scheduled run ends done. Runs in the cluster pass.
 */
describe('rolling upgrade: previous-release workers replaced one by one while turns stream', function () {
  this.timeout(400_000);
  let previous: PreviousRelease;
  let database: FreshDatabase;
  let db: Db;
  let api: Proc | undefined;
  let ws: Service;
  const oldWorkers: ChildProc[] = [];
  const newWorkers: Proc[] = [];
  let env: Record<string, string>;

  before(async () => {
    previous = await checkoutPreviousRelease();
    database = await freshDatabase({ prefix: 'ha_upgrade', log: () => undefined });
    db = createDb({ url: database.url, poolMax: 4 });
    // Migrations first: the previous release's workers run on the new schema (expand before contract).
    await migrateLatest(db);
    const repos = createRepositories(db);
    const workspaceId = (await repos.workspaces.create({ name: 'upgrade', credits: 1000 })).id;
    const apiKey = (await repos.apiKeys.create({ workspaceId })).apiKey;
    const port = await freePort();
    env = processEnv({
      databaseUrl: database.url,
      temporalAddress: fixture().temporalAddress,
      apiPort: port,
      extra: {
        TEMPORAL_TASK_QUEUE_PREFIX: `u${randomToken(6)}-`,
        LOCAL_MODEL_DELAY_MS: '100',
        MODEL_HEARTBEAT_TIMEOUT_MS: '60000',
        MODEL_RETRY_INITIAL_MS: '200',
      },
    });
    const startOld = async () => {
      const proc = new ChildProc(`worker of ${previous.ref.slice(0, 7)}`, process.execPath, [path.join(previous.dir, 'bin', 'hosted-agents.js'), 'worker'], {
        cwd: previous.dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        tailChars: 50_000,
      });
      oldWorkers.push(proc);
      await proc.waitFor(/worker polling/, 120_000);
    };
    const started = await Promise.allSettled([spawnProcess('api', env, 'API listening'), startOld(), startOld()]);
    if (started[0].status === 'fulfilled') api = started[0].value;
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    ws = new Service({ apiKey, baseURL: `http://127.0.0.1:${port}` });
  });

  after(async () => {
    await Promise.all([...oldWorkers.map((w) => w.stop()), ...newWorkers.map((w) => kill(w, 'SIGTERM')), kill(api, 'SIGTERM')]);
    await db?.destroy();
    await database?.drop();
    await previous?.remove();
  });

  /** Starts `n` turns on new conversations; `shown` resolves once each has streamed text. */
  async function streamTurns(n: number): Promise<{ shown: Promise<void>; finished: Promise<Streamed[]> }> {
    const agent = await ws.agents.create({ name: `Steady ${randomToken(4)}` });
    const conversations = await Promise.all(Array.from({ length: n }, () => agent.start()));
    const shown: Array<Promise<void>> = [];
    const finished = Promise.all(
      conversations.map((c) => {
        let text!: () => void;
        shown.push(new Promise<void>((resolve) => (text = resolve)));
        return (async () => {
          const events: TurnEvent[] = [];
          for await (const e of c.ask(MESSAGE)) {
            events.push(e);
            if (e.type === 'text') text();
          }
          text();
          const start = events.find((e) => e.type === 'start');
          return { turnId: start?.type === 'start' ? start.turnId : '', events };
        })();
      }),
    );
    return { shown: Promise.all(shown).then(() => undefined), finished };
  }

  it('every turn and every scheduled run ends once across the replacement', async () => {
    const scheduled = await ws.agents.create({ name: 'Ticker' });
    await scheduled.setTriggers([{ kind: 'interval', seconds: 3, message: 'Tick' }]);

    const first = await streamTurns(3);
    await first.shown;
    // Replace the first old worker: the new one polls before the old one drains and leaves.
    newWorkers.push(await spawnProcess('worker', env, 'worker polling'));
    await oldWorkers[0]!.stop();
    const second = await streamTurns(3);
    await second.shown;
    newWorkers.push(await spawnProcess('worker', env, 'worker polling'));
    await oldWorkers[1]!.stop();
    const swappedAt = new Date();
    const third = await streamTurns(3);

    const turns = [...(await first.finished), ...(await second.finished), ...(await third.finished)];
    for (const { turnId, events } of turns) {
      const terminal = events.filter((e) => e.type === 'done' || e.type === 'error');
      assert.equal(terminal.length, 1, `one terminal event for ${turnId}`);
      assert.equal(terminal[0]!.type, 'done', JSON.stringify(terminal[0]));
      const replies = await db('messages').where({ turn_id: turnId, role: 'assistant' });
      assert.equal(replies.length, 1, `one stored reply for ${turnId}`);
      assert.equal(replies[0].content, (terminal[0] as { reply: string }).reply);
      assert.equal((await db('credit_debits').where({ turn_id: turnId })).length, 1, `one debit for ${turnId}`);
    }

    // The schedule fired on both sides of the upgrade, and every run it made ends done.
    await waitFor('scheduled runs after the upgrade', () => db('conversations').where({ agent_id: scheduled.id }).where('started_at', '>', swappedAt).count<{ count: string }[]>('* as count'), (r) => Number(r[0]!.count) >= 2, 30_000);
    await scheduled.setTriggers([]);
    const runs = await db('conversations').where({ agent_id: scheduled.id }).select('id', 'started_at');
    assert.ok(runs.some((r) => new Date(r.started_at) < swappedAt), 'a run before the upgrade');
    await waitFor(
      'every scheduled run done',
      async () => db('turns').whereIn('conversation_id', runs.map((r) => r.id)).select('status'),
      (t) => t.length >= runs.length && t.every((x) => x.status === 'done'),
      60_000,
    );
  });
});
