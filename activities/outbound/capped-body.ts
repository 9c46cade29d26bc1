import { toolLimits } from '../tools/limits';

interface CappedBody {
  /** The bytes read: at most `maxBytes`. */
  bytes: Uint8Array;
  /** The bytes decoded with the response's charset (UTF-8 when it names none or an unknown one). */
  text: string;
  /** True when the body was longer than `maxBytes` (the rest was not downloaded). */
  truncated: boolean;
}

/** The charset a Content-Type names, if any. */
function charsetOf(contentType: string | null): string | undefined {
  const m = contentType ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType) : null;
  return m?.[1];
}

/** Decodes with the named charset, or UTF-8 when it names none or one TextDecoder does not know. */
function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Reads at most `maxBytes` of a response body, cancelling the stream past the cap. */
export async function readCapped(response: Response, maxBytes: number = toolLimits.responseBytes): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (reader) {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const room = maxBytes - size;
        if (value.byteLength > room) {
          if (room > 0) chunks.push(value.subarray(0, room));
          size += Math.max(room, 0);
          truncated = true;
          break;
        }
        chunks.push(value);
        size += value.byteLength;
      }
    } finally {
      if (truncated) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  const bytes = Buffer.concat(chunks, size);
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), text: decode(bytes, charsetOf(response.headers.get('content-type'))), truncated };
}

