/** A write that does not fit the workspace's storage quota (WORKSPACE_STORAGE_BYTES; docs/limits.md). */
export interface OverQuota {
  /** Bytes the workspace stores now, the file being replaced (if any) left out. */
  usedBytes: number;
  quotaBytes: number;
}

/** What the caller (an API client, or a model through a file tool) is told. */
export function overQuotaMessage({ usedBytes, quotaBytes }: OverQuota): string {
  return `the workspace stores ${usedBytes} of its ${quotaBytes} bytes and this file does not fit; remove files first`;
}
