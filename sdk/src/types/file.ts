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
}
