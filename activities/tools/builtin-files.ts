import type { Repositories } from '../../db/repositories';
import { MAX_FILE_BYTES, normalisePath } from '../../domain/file-path';
import { detectMimeType, looksLikeText } from '../../domain/mime';
import { overQuotaMessage } from '../../domain/storage-quota';
import { documentAsText } from '../knowledge/document-text';
import { documentFormat } from '../knowledge/extract';
import { extractInSandbox } from '../knowledge/extract-sandbox';
import { capText } from './limits';
import type { BuiltInTool } from './builtin-types';
import { str } from './builtin-types';

/**
 * File tools on the conversation's drive (offered only when the agent's `filesystem` is `drive`):
 * read, write, edit by exact replacement, list, and search by text.
 */

function path(args: Record<string, unknown>, key = 'path'): { ok: true; path: string } | { ok: false; problem: string } {
  const raw = str(args[key]);
  if (raw === undefined) return { ok: false, problem: `${key} is required` };
  const r = normalisePath(raw);
  return r.ok ? r : { ok: false, problem: `${key} ${r.problem}` };
}

export function fileTools(repos: Repositories, quotaBytes?: number): BuiltInTool[] {
  const read: BuiltInTool = {
    name: 'files.read',
    definition: {
      name: 'files_read',
      description:
        'Read a file of the conversation drive. Text comes back as is; PDF and Word (.docx) files as their text, marked by [page N] or [section "…"]; other binary files are described.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'Relative path, e.g. notes/todo.md' } }, required: ['path'], additionalProperties: false },
    },
    describe: (args) => ({ label: `Reading ${str(args.path) ?? 'a file'}`, kind: 'read' }),
    async run(ctx, args, signal) {
      const p = path(args);
      if (!p.ok) return { ok: false, content: p.problem };
      const file = await repos.files.read({ space: ctx.drive, path: p.path });
      if (!file) return { ok: false, content: `no file ${p.path}` };
      const document = { path: p.path, mimeType: file.entry.mimeType, content: file.content };
      // Only PDF and DOCX (by type or extension, even when a PDF happens to be ASCII): HTML,
      // Markdown and CSV read better as the text they are.
      const format = documentFormat(document);
      if (format === 'pdf' || format === 'docx') return documentAsText(await extractInSandbox(document, undefined, signal), p.path);
      if (!looksLikeText(file.content)) return { ok: true, content: `[binary file ${p.path}: ${file.entry.size} bytes, ${file.entry.mimeType}]` };
      return { ok: true, content: capText(file.content.toString('utf8')) };
    },
  };

  const write: BuiltInTool = {
    name: 'files.write',
    definition: {
      name: 'files_write',
      description: 'Create or replace a text file of the conversation drive.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Relative path' }, content: { type: 'string', description: 'The whole new content' } },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ label: `Writing ${str(args.path) ?? 'a file'}`, kind: 'write' }),
    async run(ctx, args) {
      const p = path(args);
      if (!p.ok) return { ok: false, content: p.problem };
      const content = str(args.content);
      if (content === undefined) return { ok: false, content: 'content must be a string' };
      const bytes = Buffer.from(content, 'utf8');
      if (bytes.byteLength > MAX_FILE_BYTES) return { ok: false, content: `files are at most ${MAX_FILE_BYTES} bytes` };
      const r = await repos.files.put({
        workspaceId: ctx.workspaceId,
        space: ctx.drive,
        path: p.path,
        content: bytes,
        mimeType: detectMimeType(p.path, bytes),
        ...(quotaBytes !== undefined ? { quotaBytes } : {}),
      });
      if ('conflict' in r) return { ok: false, content: r.conflict };
      if ('overQuota' in r) return { ok: false, content: overQuotaMessage(r.overQuota) };
      return { ok: true, content: `wrote ${bytes.byteLength} bytes to ${p.path}`, files: [p.path] };
    },
  };

  const edit: BuiltInTool = {
    name: 'files.edit',
    definition: {
      name: 'files_edit',
      description: 'Replace one exact piece of text in a file. old_text must occur exactly once.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          old_text: { type: 'string', description: 'Text to replace, exactly as it appears (must occur once)' },
          new_text: { type: 'string', description: 'Replacement text' },
        },
        required: ['path', 'old_text', 'new_text'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ label: `Editing ${str(args.path) ?? 'a file'}`, kind: 'edit' }),
    async run(ctx, args) {
      const p = path(args);
      if (!p.ok) return { ok: false, content: p.problem };
      const oldText = str(args.old_text);
      const newText = str(args.new_text);
      if (!oldText || newText === undefined) return { ok: false, content: 'old_text (non-empty) and new_text are required' };
      const space = ctx.drive;
      const file = await repos.files.read({ space, path: p.path });
      if (!file) return { ok: false, content: `no file ${p.path}` };
      const text = file.content.toString('utf8');
      const count = text.split(oldText).length - 1;
      if (count !== 1) return { ok: false, content: `old_text occurs ${count} times in ${p.path}; it must occur exactly once` };
      const next = Buffer.from(text.replace(oldText, () => newText), 'utf8');
      const r = await repos.files.put({
        workspaceId: ctx.workspaceId,
        space,
        path: p.path,
        content: next,
        mimeType: file.entry.mimeType,
        ...(quotaBytes !== undefined ? { quotaBytes } : {}),
      });
      if ('conflict' in r) return { ok: false, content: r.conflict };
      if ('overQuota' in r) return { ok: false, content: overQuotaMessage(r.overQuota) };
      return { ok: true, content: `edited ${p.path}`, files: [p.path] };
    },
  };

  const list: BuiltInTool = {
    name: 'files.list',
    definition: {
      name: 'files_list',
      description: 'List files and folders of the conversation drive (one level).',
      parameters: { type: 'object', properties: { dir: { type: 'string', description: 'Folder; empty for the top' } }, additionalProperties: false },
    },
    describe: (args) => ({ label: `Listing ${str(args.dir) || 'files'}`, kind: 'read' }),
    async run(ctx, args) {
      const dirArg = str(args.dir) ?? '';
      const dir = normalisePath(dirArg, { allowRoot: true });
      if (!dir.ok) return { ok: false, content: `dir ${dir.problem}` };
      const entries = await repos.files.list({ space: ctx.drive, dir: dir.path });
      if (entries.length === 0) return { ok: true, content: `no files in ${dir.path || 'the drive'}` };
      return { ok: true, content: capText(entries.map((e) => (e.kind === 'directory' ? `${e.path}/` : `${e.path} (${e.size} bytes)`)).join('\n')) };
    },
  };

  const search: BuiltInTool = {
    name: 'files.search',
    definition: {
      name: 'files_search',
      description: 'Find lines containing a text (case-insensitive) in the text files of the drive.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, dir: { type: 'string', description: 'Limit to a folder' } },
        required: ['query'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ label: `Searching files for "${str(args.query) ?? ''}"`, kind: 'search' }),
    async run(ctx, args) {
      const query = str(args.query)?.toLowerCase();
      if (!query) return { ok: false, content: 'query is required' };
      const dir = normalisePath(str(args.dir) ?? '', { allowRoot: true });
      if (!dir.ok) return { ok: false, content: `dir ${dir.problem}` };
      const hits: string[] = [];
      for (const file of await repos.files.textFiles({ space: ctx.drive, dir: dir.path })) {
        file.text.split('\n').forEach((line, i) => {
          if (hits.length < 50 && line.toLowerCase().includes(query)) hits.push(`${file.path}:${i + 1}: ${line.trim().slice(0, 200)}`);
        });
      }
      return { ok: true, content: hits.length ? hits.join('\n') : `no line contains "${query}"` };
    },
  };

  return [read, write, edit, list, search];
}
