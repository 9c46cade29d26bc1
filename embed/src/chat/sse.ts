/** One dispatched Server-Sent Event. */
export interface SSEEvent {
  /** The last `id:` seen on the stream so far (SSE keeps it across events), or '' when none. */
  id: string;
  /** The `event:` field, or 'message' when the event had none. */
  event: string;
  /** All `data:` lines joined with `\n`. */
  data: string;
}

/**
 * Incremental Server-Sent Events decoder (the field rules of the HTML standard): feed it text in
 * chunks cut anywhere, get back the events completed so far. Lines may end in `\n`, `\r\n` or
 * `\r`; `:` comments (keepalives) and unknown fields are ignored; an event is dispatched at a
 * blank line and only if it carried `data`. Decoding bytes to text is the caller's job
 * (a streaming `TextDecoder` keeps split UTF-8 characters intact).
 */
export class SSEParser {
  private buffer = '';
  /** A chunk ended in `\r`: a `\n` starting the next chunk belongs to the same line break. */
  private pendingCR = false;
  private lastId = '';
  private event = '';
  private data: string[] = [];

  /** Decodes `chunk` and returns every event it completed, in order. */
  push(chunk: string): SSEEvent[] {
    if (chunk === '') return [];
    if (this.pendingCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCR = chunk.endsWith('\r');
    this.buffer += chunk;
    const out: SSEEvent[] = [];
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() ?? ''; // the unfinished last line waits for more text
    for (const line of lines) {
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  private line(line: string): SSEEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    return undefined;
  }

  private dispatch(): SSEEvent | undefined {
    const { data, event } = this;
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { id: this.lastId, event: event || 'message', data: data.join('\n') };
  }
}
