/** Entries of the file spaces. The server's schema is in `domain/file-path.ts`. */

/** An entry of a file space (agent knowledge, conversation drive, project files). */
export interface FileEntry {
  /** Relative `/`-separated path. */
  path: string;
  /** File or folder. */
  kind: 'file' | 'directory';
  /** Media type; `inode/directory` for folders. */
  mimeType: string;
  /** Size in bytes; 0 for folders. */
  size: number;
  /** When the entry last changed. */
  modifiedAt: string;
  /** Where the file stands in the search index; only on files of agent knowledge and project files. */
  index?: FileIndex;
}

/** A file's state in the knowledge index: `pending` until indexed, then `indexed` or `failed`. */
export interface FileIndex {
  status: 'pending' | 'indexed' | 'failed';
  /** Chunks stored for the indexed content. */
  chunks?: number;
  /** Why indexing failed (e.g. a PDF without a text layer). */
  error?: string;
  /** On an indexed file, what a limit left out (e.g. `only the first 500 of 812 pages were read`). */
  note?: string;
}
