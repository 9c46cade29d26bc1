/** The knowledge index's signal, as both the API's services and the worker's tools send it (docs/knowledge.md). */

/** Tells a space's indexing workflow that its files changed (docs/knowledge.md). */
export interface KnowledgeIndexer {
  /**
   * Signals (or starts) the space's workflow; a space that is not indexed is ignored. Never
   * rejects: the write it follows stands, and if Temporal cannot be told, the files stay
   * `pending` (search reads them whole meanwhile) until the space's next write.
   */
  changed(workspaceId: string, space: string): Promise<void>;
}
