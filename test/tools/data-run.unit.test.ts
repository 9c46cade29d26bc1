import assert from 'node:assert/strict';
import { sandboxLimits } from '../../activities/tools/sandbox/limits';
import { runProgram } from '../../activities/tools/sandbox/sandbox';

const CSV = 'region,amount\nnorth,12.5\nsouth,30\nnorth,7.5\n\n';
const run = (code: string, files: Record<string, string> = { 'sales.csv': CSV }) => runProgram({ code, files });

/** The longest the host's event loop stalled while `work` ran: a thread of its own should leave it free. */
async function loopStallDuring<T>(work: Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = Date.now();
  let stallMs = 0;
  const tick = setInterval(() => {
    stallMs = Math.max(stallMs, Date.now() - last);
    last = Date.now();
  }, 20);
  try {
    return { result: await work, stallMs };
  } finally {
    clearInterval(tick);
  }
}

/**
 * The data.run sandbox (issue 37, item 4): QuickJS in WebAssembly, in a thread of its own. Each
 * escape a prompt-injected program might try is refused with a clear error, and the host is
 * unharmed: its event loop keeps turning, its prototypes are untouched, the next program runs.
 */
describe('data.run sandbox', function () {
  this.timeout(60_000);

  it('totals a CSV: parseCSV types numbers, print and the returned value come back', async () => {
    const reply = await run(`
      const rows = parseCSV(readFile("sales.csv"));
      print("rows:", rows.length);
      const byRegion = {};
      for (const r of rows) byRegion[r.region] = (byRegion[r.region] ?? 0) + r.amount;
      return { total: rows.reduce((n, r) => n + r.amount, 0), byRegion };`);
    assert.deepEqual(reply, { ok: true, printed: 'rows: 3\n', result: '{"total":50,"byRegion":{"north":20,"south":30}}', writes: {} });
  });

  it('writes files through writeFile only, within its limits', async () => {
    const wrote = await run('writeFile("out/summary.csv", toCSV([{ region: "north", total: 20 }])); return inputs');
    assert.deepEqual(wrote, { ok: true, printed: '', result: '["sales.csv"]', writes: { 'out/summary.csv': 'region,total\r\nnorth,20' } });
    const many = await run(`for (let i = 0; i <= ${sandboxLimits.outputFiles}; i++) writeFile("f" + i + ".txt", "x")`);
    assert.deepEqual(many, { ok: false, printed: '', error: `Error: at most ${sandboxLimits.outputFiles} files a run` });
  });

  it('an endless loop is interrupted after the interpreter time limit', async () => {
    const { result, stallMs } = await loopStallDuring(run('while (true) {}'));
    assert.deepEqual(result, { ok: false, printed: '', error: `the program ran longer than ${sandboxLimits.cpuMs} ms and was interrupted` });
    assert.ok(stallMs < 500, `the host's event loop stalled ${stallMs} ms`);
  });

  it('a memory bomb stops at the heap limit or the wall limit, never stalling the host', async () => {
    for (const code of ['let s = "x"; while (true) s = s + s;', 'const a = []; while (true) a.push(new Array(100000).fill(a.length));']) {
      const started = Date.now();
      const { result, stallMs } = await loopStallDuring(run(code));
      assert.equal(result.ok, false, code);
      assert.match(result.ok ? '' : result.error, /out of memory|string too long|ran longer than/, code);
      assert.ok(Date.now() - started < sandboxLimits.wallMs + 2000, `${code}: took ${Date.now() - started} ms`);
      assert.ok(stallMs < 500, `${code}: the host's event loop stalled ${stallMs} ms`);
    }
  });

  it('deep recursion is a stack overflow inside QuickJS, not in the host', async () => {
    assert.deepEqual(await run('function f() { return f() + 1 } return f()'), { ok: false, printed: '', error: 'InternalError: stack overflow' });
  });

  it("the host's globals are out of reach: constructor.constructor, require, import, process, fetch", async () => {
    const probe = await run(`
      const F = (() => {}).constructor.constructor;
      return [typeof F("return this")().process, typeof require, typeof globalThis.fetch, typeof setTimeout, typeof Buffer, typeof globalThis.os, typeof std];`);
    assert.deepEqual(probe, { ok: true, printed: '', result: JSON.stringify(Array(7).fill('undefined')), writes: {} });
    // import() gives a promise that nothing settles: the sandbox has no module loader and runs no jobs.
    assert.deepEqual(await run('const p = import("node:fs"); return [typeof p.then, JSON.stringify(p)]'), { ok: true, printed: '', result: '["function","{}"]', writes: {} });
  });

  it('prototype tricks stay in the sandbox, and each run starts clean', async () => {
    assert.equal((await run('Object.prototype.polluted = "yes"; Array.prototype.map = null; return 1')).ok, true);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'the host is untouched');
    assert.equal(typeof [].map, 'function');
    assert.deepEqual(await run('return [({}).polluted, typeof [].map]'), { ok: true, printed: '', result: '[null,"function"]', writes: {} });
  });

  it('reads only its inputs; huge output is cut; a throw is a clear error', async () => {
    const outside = await run('return readFile("../../etc/passwd")');
    assert.deepEqual(outside, { ok: false, printed: '', error: 'Error: "../../etc/passwd" is not an input: list it in the call\'s inputs (loaded: sales.csv)' });
    const loud = await run('for (let i = 0; i < 5000; i++) print("line " + i); return "done"'); // ~44 000 characters
    assert.ok(loud.ok && loud.printed.length >= sandboxLimits.outputChars && loud.printed.length <= sandboxLimits.outputChars + 20, `printed ${loud.printed.length} characters`);
    assert.deepEqual(await run('throw new TypeError("bad row")'), { ok: false, printed: '', error: 'TypeError: bad row' });
  });

  it('after every escape above, a plain program still runs', async () => {
    assert.deepEqual(await run('return 6 * 7'), { ok: true, printed: '', result: '42', writes: {} });
  });
});
