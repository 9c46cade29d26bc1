import type { Workflow } from './types/agent.js';

/** The parts of `node:fs/promises` used here (the SDK compiles without Node's types). */
interface NodeFs {
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ isFile(): boolean }>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
}

/** The part of `node:path` used here. */
interface NodePath {
  join(...segments: string[]): string;
}

/**
 * Loads a Node built-in only when called. The specifier is a variable and bundlers are told to
 * leave the import alone, so browser bundles of the SDK neither contain nor resolve it.
 */
async function nodeModule<T>(specifier: string): Promise<T> {
  return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as T;
}

/**
 * Reads the workflows of a folder (Node only): every `*.md` file directly in `dir` (not in
 * subfolders; other files are ignored) is one `Workflow`. A file starts with a front-matter
 * block giving `name` and `when`; the rest is `content`:
 *
 * ```md
 * ---
 * name: Refund request
 * when: "the customer asks for their money back"
 * ---
 * 1. Look up the order...
 * ```
 *
 * Front matter is read line by line as `key: value`; a value may be wrapped in `"` or `'`
 * quotes, which are removed (`\"` and `\\` inside double quotes, `''` inside single quotes).
 * Other keys, indented lines and comment lines are ignored; values are single-line and taken
 * literally (no YAML comments or multi-line values). CRLF line endings and a UTF-8 BOM are
 * accepted; `content` comes back with `\n` line endings, without its leading blank lines and
 * trailing whitespace.
 *
 * Resolves to the workflows sorted by `name` (code-unit order). Rejects with an `Error` naming
 * the file when one has no front matter, no `name`, no `when` or an empty body, or when two
 * files give the same `name`; file-system errors (e.g. a missing folder) pass through.
 *
 * ```ts
 * for (const workflow of await loadWorkflows('./workflows')) await agent.setWorkflow(workflow);
 * ```
 */
export async function loadWorkflows(dir: string): Promise<Workflow[]> {
  const fs = await nodeModule<NodeFs>('node:fs/promises');
  const { join } = await nodeModule<NodePath>('node:path');
  const workflows: Workflow[] = [];
  const sources = new Map<string, string>();
  for (const name of (await fs.readdir(dir)).sort()) {
    if (!name.toLowerCase().endsWith('.md')) continue;
    const file = join(dir, name);
    if (!(await fs.stat(file)).isFile()) continue;
    const workflow = parseWorkflow(await fs.readFile(file, 'utf8'), file);
    const earlier = sources.get(workflow.name);
    if (earlier !== undefined) throw new Error(`${file}: workflow name ${JSON.stringify(workflow.name)} is already used by ${earlier}`);
    sources.set(workflow.name, file);
    workflows.push(workflow);
  }
  return workflows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Parses one workflow file; `file` names it in errors. */
function parseWorkflow(text: string, file: string): Workflow {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const isFence = (line: string | undefined) => line !== undefined && /^---[ \t]*$/.test(line);
  if (!isFence(lines[0])) throw new Error(`${file}: no front matter (the file must start with a line "---")`);
  const close = lines.findIndex((line, i) => i > 0 && isFence(line));
  if (close === -1) throw new Error(`${file}: the front matter is not closed by a line "---"`);
  const fields = new Map<string, string>();
  for (const line of lines.slice(1, close)) {
    const match = /^([A-Za-z_][\w-]*)[ \t]*:(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) fields.set(match[1], unquote(match[2].trim()));
  }
  const name = fields.get('name');
  const when = fields.get('when');
  if (!name) throw new Error(`${file}: the front matter has no "name"`);
  if (!when) throw new Error(`${file}: the front matter has no "when"`);
  const content = lines
    .slice(close + 1)
    .join('\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  if (content === '') throw new Error(`${file}: the workflow has no content after the front matter`);
  return { name, when, content };
}

/** Removes one pair of surrounding quotes, undoing the escapes YAML allows inside them. */
function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(["\\])/g, '$1').trim();
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'").trim();
  return value;
}
