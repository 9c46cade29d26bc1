import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Extraction } from '../activities/knowledge/extract';
import type { ExtractionLimits } from '../activities/knowledge/extract-support';
import { extractInSandbox, extractionSandbox } from '../activities/knowledge/extract-sandbox';
import { Document, HeadingLevel, ImageRun, Packer, Paragraph } from 'docx';
import { makePdf } from '../test/support/documents';
import { appendResult } from './lib/results';

/**
 * `npm run bench:extract`: what the extraction sandbox (activities/knowledge/extract-sandbox.ts)
 * costs on ordinary documents — a 200-page PDF and a DOCX of about 5 MB — against extracting in
 * the worker's own process, as main did before it. Each round runs both ways, alternating which
 * goes first; the figures are medians over BENCH_EXTRACT_ROUNDS rounds [3], with the ratio taken
 * round by round.
 *
 * The in-process side is `extractText` of this tree, or, with BENCH_EXTRACT_BASELINE=<checkout>,
 * of another checkout (e.g. a worktree of the previous main), so the bounds checks that now run
 * before parsing can be counted in or out.
 */

const out = (line = '') => process.stdout.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_EXTRACT_ROUNDS ?? 3);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('BENCH_EXTRACT_ROUNDS: a whole number ≥ 1');

type ExtractFn = (file: { path: string; mimeType: string; content: Uint8Array }, limits?: Partial<ExtractionLimits>) => Promise<Extraction>;

function baseline(): { fn: ExtractFn; from: string } {
  const root = process.env.BENCH_EXTRACT_BASELINE ? path.resolve(process.env.BENCH_EXTRACT_BASELINE) : path.resolve(__dirname, '..');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module of another checkout, chosen at run time
  const mod = require(path.join(root, 'activities/knowledge/extract.ts')) as { extractText: ExtractFn };
  return { fn: mod.extractText, from: root };
}

const WORDS = 'refund parcel courier warranty invoice holiday password office garden receipt store weekday price account delivery repair leave annual'.split(' ');
function prose(seed: number, words: number): string {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

async function documents() {
  const pdf = await makePdf(Array.from({ length: 200 }, (_, i) => `Page ${i + 1}\n\n${prose(i, 380)}`));
  return [
    { name: '200-page PDF', file: { path: 'manual.pdf', mimeType: 'application/pdf', content: pdf } },
    { name: '5 MB DOCX', file: { path: 'report.docx', mimeType: '', content: await reportDocx() } },
  ];
}

/**
 * A report as people write them: 200 pages of text (400 headed sections of two paragraphs, about
 * 100 000 words) and 20 figures of 230 KB each, which make most of its 5 MB (the figures are
 * random bytes: they do not compress, as real images barely do; text extraction drops them).
 */
async function reportDocx(): Promise<Uint8Array> {
  const figure = (i: number) =>
    new Paragraph({ children: [new ImageRun({ type: 'png', data: randomBytes(230 * 1024), transformation: { width: 400, height: 300 }, altText: { name: `Figure ${i}`, title: `Figure ${i}`, description: '' } })] });
  const children = Array.from({ length: 400 }, (_, i) => [
    new Paragraph({ text: `Section ${i + 1}`, heading: HeadingLevel.HEADING_1 }),
    new Paragraph({ text: prose(i, 120) }),
    new Paragraph({ text: prose(i + 7, 120) }),
    ...(i % 20 === 0 ? [figure(i / 20)] : []),
  ]).flat();
  return new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children }] })));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed(fn: () => Promise<Extraction>): Promise<{ ms: number; chars: number }> {
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  if (!r.ok) throw new Error(`extraction failed: ${r.reason}`);
  return { ms, chars: r.sections.reduce((n, s) => n + s.text.length, 0) };
}

/** The sandbox of this tree: its sources through tsx, or with BENCH_EXTRACT_BUILD=1 build/ (`npm run build:server`), as production runs it. */
function sandbox(): { fn: ExtractFn; from: string } {
  if (!process.env.BENCH_EXTRACT_BUILD) return { fn: extractInSandbox, from: 'the sources (children run through tsx)' };
  const file = path.resolve(__dirname, '../build/activities/knowledge/extract-sandbox.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled tree, chosen at run time
  return { fn: (require(file) as { extractInSandbox: ExtractFn }).extractInSandbox, from: 'build/' };
}

/** Long enough for the spare child forked after each use to load its parsers (extract-sandbox.ts). */
const SPARE_READY_MS = 2_500;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const { fn: inProcess, from } = baseline();
  const { fn: sandboxed, from: sandboxFrom } = sandbox();
  out(`bench:extract — ${ROUNDS} rounds; in process: extractText of ${from}; sandbox: ${sandboxFrom}, heap ${extractionSandbox.heapMb} MB / RSS ${extractionSandbox.rssMb} MB`);
  const docs = await documents();
  for (const doc of docs) {
    out(`\n${doc.name} (${doc.file.content.byteLength} bytes)`);
    // The first call each way is not a round: module loading, tsx's compile cache, and no spare
    // child yet — which is what a worker's first file after a minute's quiet pays, so it is shown.
    await timed(() => inProcess(doc.file));
    const cold = await timed(() => sandboxed(doc.file));
    out(`  first call, no spare child: sandbox ${cold.ms.toFixed(0)} ms`);
    const here: number[] = [];
    const boxed: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['here', 'sandbox'] as const) : (['sandbox', 'here'] as const);
      const took: Record<'here' | 'sandbox', number> = { here: 0, sandbox: 0 };
      for (const way of order) {
        await pause(SPARE_READY_MS);
        const r = await timed(() => (way === 'here' ? inProcess(doc.file) : sandboxed(doc.file)));
        took[way] = r.ms;
      }
      here.push(took.here);
      boxed.push(took.sandbox);
      ratios.push(took.sandbox / took.here);
      out(`  round ${round + 1}: in process ${took.here.toFixed(0)} ms, sandbox ${took.sandbox.toFixed(0)} ms`);
    }
    const figures = { inProcessMs: median(here), sandboxMs: median(boxed), ratio: median(ratios), extraMs: median(boxed) - median(here), coldSandboxMs: cold.ms };
    out(`  median: in process ${figures.inProcessMs.toFixed(0)} ms, sandbox ${figures.sandboxMs.toFixed(0)} ms (+${figures.extraMs.toFixed(0)} ms, ×${figures.ratio.toFixed(2)} round by round)`);
    appendResult('extract', { document: doc.name, bytes: doc.file.content.byteLength, rounds: ROUNDS, sandboxFrom, ...figures });
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
