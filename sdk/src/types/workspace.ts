/** The workspace record. The server's schema is in `domain/workspace.ts`. */

/**
 * A workspace: owner of agents and projects, holding a credit balance. This is the record
 * `ws.get()` resolves to; the handle you call methods on is a `WorkspaceClient`.
 */
export interface Workspace {
  /** Workspace id. */
  id: string;
  /** Display name. */
  name: string;
  /** Credit balance; turns debit it. */
  credits: number;
  /** When the workspace was created. */
  createdAt: string;
}
