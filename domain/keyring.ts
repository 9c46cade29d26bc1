/**
 * Key rings in environment values (SECRETS_KEY, PAYLOAD_KEY, URL_SIGNING_KEY): a comma-separated
 * list of keys, the first one current (new values are sealed or signed with it), the others
 * previous ones kept so that what they made still opens until it is re-encrypted or expires.
 * Each entry is `label:key` or a bare `key`; the label is for the operator's own bookkeeping
 * (which key is which), never stored. A single key, as before rings, is a ring of one.
 *
 *   SECRETS_KEY=2026-06:Q2hh…=,2026-01:ZmFr…=
 */
export interface KeyringEntry {
  /** The operator's name for the key, when given. */
  label?: string;
  /** The key text after the label. */
  text: string;
}

const LABEL = /^[A-Za-z0-9_.-]{1,32}$/;

/** The entries of a ring's text, current first; an empty list when there are none. */
export function parseKeyring(value: string): KeyringEntry[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const colon = entry.indexOf(':');
      const label = colon > 0 ? entry.slice(0, colon) : undefined;
      return label !== undefined && LABEL.test(label) ? { label, text: entry.slice(colon + 1).trim() } : { text: entry };
    });
}

/**
 * The decoded keys of a ring, current first, or the message for the first entry `decode` refuses
 * (naming its position, never its text).
 */
export function decodeKeyring<K>(value: string, decode: (text: string) => K | undefined, format: string): { keys: K[] } | { error: string } {
  const entries = parseKeyring(value);
  if (entries.length === 0) return { error: format };
  const keys: K[] = [];
  for (const [i, entry] of entries.entries()) {
    const key = decode(entry.text);
    if (key === undefined) {
      const which = entries.length === 1 ? '' : `key ${i + 1} of ${entries.length}${entry.label ? ` (${entry.label})` : ''}: `;
      return { error: `${which}${format}` };
    }
    keys.push(key);
  }
  return { keys };
}

/** The format every ring variable accepts, for messages and docs/operations.md. */
export const KEYRING_FORMAT = 'one key, or a comma-separated ring `label:key,label:key` whose first key is current';
