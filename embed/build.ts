/**
 * Builds the browser assets into embed/dist: v1.js (the embed script, one IIFE, budget 4 KB
 * gzip), chat.js and chat.css (the hosted chat page), and a copy of Redoc for the docs page. Run directly to build and check the budget:
 * `node --require tsx/cjs embed/build.ts`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';

/** The embed script's size budget, gzip bytes: it loads on every page of a customer's site. */
export const LOADER_GZIP_BUDGET = 4096;

export interface BuiltFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

const src = path.join(__dirname, 'src');

const common: BuildOptions = {
  bundle: true,
  minify: true,
  write: false,
  target: 'es2019',
  platform: 'browser',
  format: 'iife',
  logLevel: 'silent',
};

/** Bundles `entry` and returns its single output's text. */
async function bundle(entry: string, options: BuildOptions = {}): Promise<string> {
  const result = await build({ ...common, ...options, entryPoints: [path.join(src, entry)] });
  const [output] = result.outputFiles ?? [];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.text;
}

/** Builds all three files into `outdir` (default embed/dist) and reports their sizes. */
export async function buildEmbed(opts: { outdir?: string } = {}): Promise<BuiltFile[]> {
  const outdir = opts.outdir ?? path.join(__dirname, 'dist');
  // The loader's CSS is minified on its own and inlined as a string: v1.js must be one file.
  const loaderCss = await bundle('loader/loader.css', { format: undefined });
  const files: Record<string, string> = {
    'v1.js': await bundle('loader/main.ts', { define: { LOADER_CSS: JSON.stringify(loaderCss.trim()) } }),
    'chat.js': await bundle('chat/main.ts'),
    'chat.css': await bundle('chat/chat.css', { format: undefined }),
    // The API docs page (`GET /docs`) renders the OpenAPI document with Redoc's prebuilt bundle,
    // served from our own origin (no CDN). A devDependency: only this copy reaches the image.
    'redoc.standalone.js': readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8'),
  };
  mkdirSync(outdir, { recursive: true });
  return Object.entries(files).map(([name, text]) => {
    const file = path.join(outdir, name);
    const bytes = Buffer.from(text);
    writeFileSync(file, bytes);
    return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
  });
}

if (require.main === module) {
  buildEmbed().then(
    (files) => {
      for (const f of files) console.log(`${path.relative(process.cwd(), f.file)}  ${f.bytes} bytes  ${f.gzipBytes} gzip`);
      const loader = files.find((f) => path.basename(f.file) === 'v1.js');
      if (loader && loader.gzipBytes > LOADER_GZIP_BUDGET) {
        console.error(`v1.js is ${loader.gzipBytes} bytes gzip, over the ${LOADER_GZIP_BUDGET}-byte budget`);
        process.exitCode = 1;
      }
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
