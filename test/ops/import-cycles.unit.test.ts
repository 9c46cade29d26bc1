import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * No import cycle in our code, type-only imports included. Lint's `import-x/no-cycle` skips
 * `import type`, but a reader following a type's arrow walks the same circle, so this reads every
 * import (TypeScript's own pre-parser) and looks for strongly connected files.
 */
const ROOT = path.join(__dirname, '../..');
const FOLDERS = ['api', 'activities', 'cli', 'config', 'db', 'domain', 'infra', 'services', 'turns', 'workers', 'workflows', 'harness', 'sdk/src', 'embed/src'];

function sourcesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourcesUnder(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** A relative specifier's file: `x.ts`, `x/index.ts`, or the SDK's ESM `x.js` written for `x.ts`. */
function resolveRelative(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [`${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of FOLDERS.flatMap((f) => sourcesUnder(path.join(ROOT, f)))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    graph.set(file, importedFiles.flatMap((i) => resolveRelative(file, i.fileName) ?? []));
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file: each is a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(path.relative(ROOT, w));
      if (w === v) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports', () => {
  it('form no cycle, type-only imports included', () => {
    const graph = importGraph();
    assert.ok(graph.size > 300, `read ${graph.size} files: the folders moved?`);
    assert.deepEqual(cycles(graph), []);
  });

  it('a cycle is found when there is one (the check can fail)', () => {
    const a = path.join(ROOT, 'a.ts');
    const b = path.join(ROOT, 'b.ts');
    assert.deepEqual(cycles(new Map([[a, [b]], [b, [a]]])), [['a.ts', 'b.ts']]);
  });
});
