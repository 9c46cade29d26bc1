import { z } from 'zod';

/**
 * Paths in a file space (agent knowledge, conversation drive, project files) are relative,
 * `/`-separated and confined: no `..` or `.` segments, no leading `/`, no NUL or control
 * characters, no backslashes. `a//b/` normalises to `a/b`. At most 512 characters and 16 levels.
 */
const MAX_PATH_LENGTH = 512;
const MAX_PATH_DEPTH = 16;

type PathResult = { ok: true; path: string } | { ok: false; problem: string };

export function normalisePath(raw: string, { allowRoot = false }: { allowRoot?: boolean } = {}): PathResult {
  if (raw.includes('\0')) return { ok: false, problem: 'must not contain NUL' };
  // Control characters would let a path hide text in listings and logs.
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(raw)) return { ok: false, problem: 'must not contain control characters' };
  if (raw.includes('\\')) return { ok: false, problem: 'use / to separate folders' };
  if (raw.startsWith('/')) return { ok: false, problem: 'must be relative (no leading /)' };
  const segments = raw.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) return { ok: false, problem: 'must not contain . or .. segments' };
  const path = segments.join('/');
  if (path === '' && !allowRoot) return { ok: false, problem: 'must name a file' };
  if (path.length > MAX_PATH_LENGTH) return { ok: false, problem: `must be at most ${MAX_PATH_LENGTH} characters` };
  if (segments.length > MAX_PATH_DEPTH) return { ok: false, problem: `must be at most ${MAX_PATH_DEPTH} levels deep` };
  return { ok: true, path };
}

/** zod form of `normalisePath`, so route parsing names the field on failure. */
export function filePathSchema(opts: { allowRoot?: boolean } = {}) {
  return z.string().transform((raw, ctx) => {
    const r = normalisePath(raw, opts);
    if (r.ok) return r.path;
    ctx.addIssue({ code: 'custom', message: r.problem });
    return z.NEVER;
  });
}

/** Where a file of an indexed space (agent knowledge, project files) stands in the search index (docs/knowledge.md). */
export const fileIndexSchema = z
  .object({
    status: z.enum(['pending', 'indexed', 'failed']),
    /** Chunks stored for the indexed content. */
    chunks: z.number().int().min(0).optional(),
    /** Why indexing failed (e.g. a PDF without a text layer). */
    error: z.string().optional(),
    /** On an indexed file, what a limit left out (e.g. `only the first 500 of 812 pages were read`). */
    note: z.string().optional(),
  })
  .strict()
  .meta({ id: 'FileIndex', description: 'A file\'s state in the knowledge index: `pending` until indexed, then `indexed` (with its chunk count) or `failed` (with the reason).' });
export type FileIndex = z.infer<typeof fileIndexSchema>;

export const fileEntrySchema = z
  .object({
    path: z.string(),
    kind: z.enum(['file', 'directory']),
    mimeType: z.string(),
    size: z.number().int().min(0),
    modifiedAt: z.string(),
    index: fileIndexSchema.optional(),
  })
  .strict()
  .meta({
    id: 'FileEntry',
    description: 'Directories have mimeType `inode/directory` and size 0. `index` is present on files of indexed spaces (knowledge, project files).',
  });
export type FileEntry = z.infer<typeof fileEntrySchema>;

/** Largest file in any file space (knowledge, drive). Larger uploads answer 400 `file_too_large`. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
