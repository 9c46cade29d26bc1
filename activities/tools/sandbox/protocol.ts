/** What the host sends the sandbox thread, and what it answers (activities/tools/sandbox/). */
export interface ProgramRequest {
  code: string;
  /** The input files, by path, as text. */
  files: Record<string, string>;
  /** The source of the CSV library evaluated before the program (papaparse). */
  prelude: string;
}

export type ProgramReply =
  | { ok: true; printed: string; result: string | undefined; writes: Record<string, string> }
  | { ok: false; printed: string; error: string };
