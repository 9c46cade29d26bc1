import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { FileEntry, FileIndex } from '../../domain/file-path';
import { looksLikeText } from '../../domain/mime';
import type { OverQuota } from '../../domain/storage-quota';
import type { Db } from '../connect';
import { iso } from '../rows';
import { isIndexedSpace } from '../../domain/runs/knowledge-index';

const DIRECTORY_MIME = 'inode/directory';

interface FileRow {
  path: string;
  mime_type: string;
  size: number;
  modified_at: Date;
  index_status?: string | null;
  index_error?: string | null;
  index_chunks?: number | null;
}

const ENTRY_COLUMNS = ['path', 'mime_type', 'size', 'modified_at', 'index_status', 'index_error', 'index_chunks'];

/** LIKE pattern that matches everything under `dir/`, with the user's `%` and `_` escaped. */
function under(dir: string): string {
  return `${dir.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

type PutOutcome = { entry: FileEntry } | { conflict: string } | { overQuota: OverQuota };

/**
 * File spaces (agent knowledge, conversation drives, project files) in one table, keyed by
 * `space` (e.g. `knowledge:agt_…`) and a normalised path. Folders are implied by paths.
 */
export class FilesRepository {
  constructor(private readonly db: Db) {}

  /**
   * Creates or replaces a file. A path that crosses an existing file, or names a folder, is a
   * conflict. With `quotaBytes`, a write that would take the workspace's stored bytes (every file
   * space of it; a replaced file's old bytes not counted) past it is refused, nothing written.
   */
  async put(
    input: { workspaceId: string; space: string; path: string; content: Uint8Array; mimeType: string; quotaBytes?: number },
    trx?: Knex.Transaction,
  ): Promise<PutOutcome> {
    const run = async (t: Knex.Transaction): Promise<PutOutcome> => {
      // One put at a time per space: two concurrent puts of `a` and `a/b` would each pass the checks.
      await t.raw('select pg_advisory_xact_lock(hashtext(?))', [input.space]);
      const q = t('files').where({ space: input.space });
      const blocking = await q.clone().whereIn('path', ancestors(input.path)).first('path');
      if (blocking) return { conflict: `${blocking.path} is a file, so it cannot be a folder` };
      const folder = await q.clone().whereLike('path', under(input.path)).first('path');
      if (folder) return { conflict: `${input.path} is a folder` };
      if (input.quotaBytes !== undefined) {
        const usedBytes = await this.usedBytesBesides(t, input);
        if (usedBytes + input.content.byteLength > input.quotaBytes) return { overQuota: { usedBytes, quotaBytes: input.quotaBytes } };
      }
      const sha256 = createHash('sha256').update(input.content).digest('hex');
      const [row] = await t('files')
        .insert({
          workspace_id: input.workspaceId,
          space: input.space,
          path: input.path,
          mime_type: input.mimeType,
          size: input.content.byteLength,
          content: Buffer.from(input.content.buffer, input.content.byteOffset, input.content.byteLength),
          text_content: searchableText(input.content),
          modified_at: t.raw('now()'),
          content_sha256: sha256,
          index_status: isIndexedSpace(input.space) ? 'pending' : null,
        })
        .onConflict(['space', 'path'])
        .merge({
          mime_type: t.raw('excluded.mime_type'),
          size: t.raw('excluded.size'),
          content: t.raw('excluded.content'),
          text_content: t.raw('excluded.text_content'),
          modified_at: t.raw('excluded.modified_at'),
          content_sha256: t.raw('excluded.content_sha256'),
          // The same bytes again keep their index (nothing is embedded twice) or their failure to
          // be read (a poison file is not read again); anything else waits for indexing, afresh.
          index_status: t.raw(`case when ${UNCHANGED_AND_SETTLED} then files.index_status else excluded.index_status end`),
          index_error: t.raw(`case when ${UNCHANGED_AND_SETTLED} then files.index_error else null end`),
          index_attempts: t.raw(`case when ${UNCHANGED_AND_SETTLED} then files.index_attempts else 0 end`),
        })
        .returning(ENTRY_COLUMNS);
      return { entry: toEntry(row as FileRow) };
    };
    return trx ? run(trx) : this.db.transaction(run);
  }

  /** The workspace's stored bytes, the file at (space, path) left out; taken under a lock per workspace so two writes cannot both fit in the last bytes. */
  private async usedBytesBesides(t: Knex.Transaction, at: { workspaceId: string; space: string; path: string }): Promise<number> {
    await t.raw('select pg_advisory_xact_lock(hashtext(?))', [`storage:${at.workspaceId}`]);
    const row = await t('files')
      .where({ workspace_id: at.workspaceId })
      .whereNot((q) => q.where({ space: at.space, path: at.path }))
      .sum<{ used: string | null }[]>({ used: 'size' })
      .first();
    return Number(row?.used ?? 0);
  }

  /**
   * Files and folders directly inside `dir` ('' for the top), folders first, then by name; with
   * `recursive`, every file at any depth under it, by path (folders are implied by the paths).
   */
  async list({ space, dir, recursive = false }: { space: string; dir: string; recursive?: boolean }): Promise<FileEntry[]> {
    const q = this.db('files')
      .where({ space })
      .modify((b) => (dir ? b.whereLike('path', under(dir)) : b))
      .select(ENTRY_COLUMNS);
    const rows: FileRow[] = await q;
    if (recursive) return rows.map(toEntry).sort(byPath);
    const prefix = dir ? `${dir}/` : '';
    const files: FileEntry[] = [];
    const folders = new Map<string, Date>();
    for (const row of rows) {
      const rest = row.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash === -1) {
        files.push(toEntry(row));
      } else {
        const folder = prefix + rest.slice(0, slash);
        const seen = folders.get(folder);
        if (!seen || seen < row.modified_at) folders.set(folder, row.modified_at);
      }
    }
    const folderEntries: FileEntry[] = [...folders].map(([path, at]) => ({
      path,
      kind: 'directory',
      mimeType: DIRECTORY_MIME,
      size: 0,
      modifiedAt: iso(at),
    }));
    return [...folderEntries.sort(byPath), ...files.sort(byPath)];
  }

  async read({ space, path }: { space: string; path: string }): Promise<{ entry: FileEntry; content: Buffer } | undefined> {
    const row = await this.db('files').where({ space, path }).first([...ENTRY_COLUMNS, 'content']);
    return row ? { entry: toEntry(row as FileRow), content: row.content as Buffer } : undefined;
  }

  /** Removes a file, or a folder with everything in it; false when nothing was there. */
  async remove({ space, path }: { space: string; path: string }): Promise<boolean> {
    const n = await this.db('files')
      .where({ space })
      .andWhere((w) => w.where({ path }).orWhereLike('path', under(path)))
      .delete();
    return n > 0;
  }

  /**
   * Full-text search (PostgreSQL, `simple` configuration, web-search syntax: words, "phrases",
   * -exclusions, or) over a space's text files, best first, with a highlighted snippet.
   */
  async search({ space, query, limit, unindexedOnly = false }: { space: string; query: string; limit: number; unindexedOnly?: boolean }): Promise<Array<{ path: string; snippet: string; rank: number }>> {
    const rows = await this.db('files')
      .where({ space })
      // Knowledge search reads chunks; whole files stand in only for those not indexed yet.
      .modify((q) => (unindexedOnly ? q.whereRaw("index_status is distinct from 'indexed'") : q))
      .whereRaw("search @@ websearch_to_tsquery('simple', ?)", [query])
      .select(
        'path',
        this.db.raw("ts_rank(search, websearch_to_tsquery('simple', ?)) as rank", [query]),
        this.db.raw(
          "ts_headline('simple', coalesce(text_content, ''), websearch_to_tsquery('simple', ?), 'MaxWords=30, MinWords=10, MaxFragments=2, StartSel=**, StopSel=**') as snippet",
          [query],
        ),
      )
      .orderBy([{ column: 'rank', order: 'desc' }, { column: 'path', order: 'asc' }])
      .limit(limit);
    return rows.map((r: { path: string; snippet: string; rank: number }) => ({ path: r.path, snippet: r.snippet, rank: Number(r.rank) }));
  }

  /** The text files under `dir` with their text (for grep-like search of a drive). */
  async textFiles({ space, dir }: { space: string; dir: string }): Promise<Array<{ path: string; text: string }>> {
    const q = this.db('files').where({ space }).whereNotNull('text_content').orderBy('path').select('path', 'text_content');
    const rows: Array<{ path: string; text_content: string }> = dir ? await q.whereLike('path', under(dir)) : await q;
    return rows.map((r) => ({ path: r.path, text: r.text_content }));
  }

  /** The paths of a space's files, in order (at most `limit`). */
  async paths({ space, limit }: { space: string; limit: number }): Promise<string[]> {
    const rows = await this.db('files').where({ space }).orderBy('path').limit(limit).select('path');
    return rows.map((r: { path: string }) => r.path);
  }

  /**
   * Drops the drives of an agent's own conversations (the agent is being deleted, and its
   * conversations with it). A member's delegated conversation of a project uses the project's
   * space, which outlives the agent, so it is left alone.
   */
  async dropAgentDrives({ agentId }: { agentId: string }, trx: Knex.Transaction): Promise<void> {
    await trx('files')
      .whereIn('space', trx('conversations').where({ agent_id: agentId }).whereNull('project_id').select(trx.raw("'drive:' || id")))
      .delete();
  }

  /** Drops a whole file space (its owner is being deleted). */
  async dropSpace({ space }: { space: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('files').where({ space }).delete();
  }
}

/** PostgreSQL refuses tsvectors over 1 MB; index the first 500 000 characters of text files. */
const MAX_INDEXED_CHARS = 500_000;

function searchableText(content: Uint8Array): string | null {
  if (!looksLikeText(content)) return null;
  const text = new TextDecoder().decode(content);
  return text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
}

const UNCHANGED_AND_SETTLED = `(files.index_status = 'indexed' and files.indexed_sha256 = excluded.content_sha256)
  or (files.index_status = 'failed' and files.index_failed_sha256 = excluded.content_sha256)`;

/** By path, code unit by code unit (not the database's collation): the same order on every server. */
const byPath = (a: FileEntry, b: FileEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function toEntry(row: FileRow): FileEntry {
  const entry: FileEntry = { path: row.path, kind: 'file', mimeType: row.mime_type, size: row.size, modifiedAt: iso(row.modified_at) };
  const index = toIndex(row);
  return index ? { ...entry, index } : entry;
}

function toIndex(row: FileRow): FileIndex | undefined {
  switch (row.index_status) {
    case 'pending':
      return { status: 'pending' };
    case 'indexed':
      // On an indexed file, index_error holds what a limit left out.
      return { status: 'indexed', chunks: row.index_chunks ?? 0, ...(row.index_error ? { note: row.index_error } : {}) };
    case 'failed':
      return { status: 'failed', error: row.index_error ?? 'indexing failed' };
    default:
      return undefined;
  }
}

/** The space name of an agent's knowledge files. */
export const knowledgeSpace = (agentId: string) => `knowledge:${agentId}`;
/** The space name of a conversation's drive (its files and attachments). */
const driveSpace = (conversationId: string) => `drive:${conversationId}`;
/** The space name of a project's files. */
export const projectSpace = (projectId: string) => `project:${projectId}`;
/**
 * The drive a conversation's files and tools use: the project's file space for a conversation
 * of a project (the manager's, and each member's delegated one), else its own.
 */
export const conversationDrive = (row: { id: string; project_id: string | null }) =>
  row.project_id ? projectSpace(row.project_id) : driveSpace(row.id);
