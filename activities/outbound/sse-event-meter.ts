const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the bytes of the Server-Sent Event being received, from the raw bytes of the stream, so a
 * caller can refuse an event past a size before any parser buffers it (an SSE parser keeps a
 * partial line and a partial event in memory however long they grow). An event ends at a blank
 * line; a line ends with CRLF, LF or CR (the WHATWG event-stream grammar), so the count starts
 * again after two line ends in a row. Comments and fields other than `data` count too: every
 * byte the parser would hold, a line end as one (CRLF too).
 */
export class SseEventMeter {
  /** Bytes of the current event so far. */
  private size = 0;
  /** The last byte ended a line (or nothing came yet): one more line end is a blank line. */
  private lineStart = true;
  /** The last byte was CR: an LF right after it belongs to the same line end. */
  private afterCr = false;

  /** Feeds the next bytes of the stream; answers the largest size an event reached within them. */
  feed(chunk: Uint8Array): number {
    let largest = this.size;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === LF && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (this.lineStart) {
          this.size = 0;
          continue;
        }
        this.lineStart = true;
      } else {
        this.lineStart = false;
      }
      this.size += 1;
      if (this.size > largest) largest = this.size;
    }
    return largest;
  }
}
