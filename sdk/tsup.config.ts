import { defineConfig } from 'tsup';

/**
 * One entry, two formats: ESM (`dist/index.js`) and CJS (`dist/index.cjs`), each with its own
 * declarations (`index.d.ts`, `index.d.cts`), as the `exports` map in package.json expects.
 * `platform: 'neutral'` keeps Node built-ins out so the same bundle runs in browsers.
 */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: ['node20', 'es2022', 'chrome111', 'firefox111', 'safari16.4'],
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: false,
  treeshake: true,
});
