import assert from 'node:assert/strict';
import { Service, type TurnEvent } from '../../sdk/src';
import { useTestApi } from '../support/api';

/** data.run through a real turn: the offline model calls it, the worker runs it in the sandbox. */
describe('data.run in a turn', function () {
  this.timeout(60_000);
  const api = useTestApi();

  it('totals a CSV from the drive, writes a summary (a file event), and shows a data step', async () => {
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const agent = await ws.agents.create({ name: 'Analyst', filesystem: 'drive', tools: ['data.run'] });
    const conv = await agent.start();
    await conv.writeFile('sales.csv', 'region,amount\nnorth,12.5\nsouth,30\nnorth,7.5\n');
    const code = 'const rows = parseCSV(readFile("sales.csv")); writeFile("summary.csv", toCSV([{ total: rows.reduce((n, r) => n + r.amount, 0) }])); return rows.reduce((n, r) => n + r.amount, 0);';
    const events: TurnEvent[] = [];
    for await (const e of conv.ask(`/tool data_run ${JSON.stringify({ code, inputs: ['sales.csv'] })}`)) events.push(e);
    const done = events.at(-1);
    assert.equal(done?.type, 'done', JSON.stringify(done));
    assert.match(done?.type === 'done' ? done.reply : '', /Tool results: data_run: result: 50\nwrote: summary\.csv/);
    assert.ok(events.some((e) => e.type === 'file' && e.path === 'summary.csv'));
    const step = events.filter((e) => e.type === 'progress').at(-1);
    assert.deepEqual(step?.type === 'progress' ? step.steps.map((s) => [s.label, s.kind, s.status]) : [], [['Analysing sales.csv', 'data', 'done']]);
    assert.equal(await conv.readFile('summary.csv'), 'total\r\n50');
  });

  it('an escape attempt is a failed call the model sees, and the next call works', async () => {
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const conv = await (await ws.agents.create({ name: 'Analyst', filesystem: 'drive', tools: ['data.run'] })).start();
    const ask = async (code: string) => {
      const events: TurnEvent[] = [];
      for await (const e of conv.ask(`/tool data_run ${JSON.stringify({ code })}`)) events.push(e);
      return events;
    };
    const looped = await ask('while (true) {}');
    assert.ok(looped.some((e) => e.type === 'tool' && e.state === 'end' && e.ok === false));
    assert.match(JSON.stringify(looped.at(-1)), /data_run \(error\): the program failed: the program ran longer than 2000 ms/);
    const fine = await ask('return 6 * 7');
    assert.match(JSON.stringify(fine.at(-1)), /data_run: result: 42/);
  });
});
