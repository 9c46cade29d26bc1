import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { decodeKeyring, KEYRING_FORMAT } from './keyring';

/**
 * Encryption at rest of secret and connection values: AES-256-GCM under the operator's
 * SECRETS_KEY ring, a random 12-byte IV per value. A sealed value is one byte string:
 *
 *   version (1 byte, 0x01) ‖ key id (4 bytes) ‖ IV (12) ‖ tag (16) ‖ ciphertext
 *
 * The key id is the first 4 bytes of a SHA-256 of the key: derived, not chosen, so values sealed
 * before rings existed already name their key, and opening picks that key from the ring (any key,
 * not only the current one). `hosted-agents secrets rekey` re-seals values under the current key.
 * The caller binds each value to where it is stored (owner and name, as additional authenticated
 * data), so a value copied to another row does not open. The Temporal payload codec
 * (infra/payload-codec.ts) seals payloads with the same format under PAYLOAD_KEY.
 */

const VERSION = 0x01;
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES;

/** What SECRETS_KEY (and PAYLOAD_KEY) must be, for messages. */
export const SECRETS_KEY_FORMAT = `32 random bytes as base64, base64url or 64 hex characters (e.g. openssl rand -base64 32); ${KEYRING_FORMAT}`;

/**
 * The 32 key bytes of one key's text: 64 hex characters, or base64 or base64url (padding
 * optional) of exactly 32 bytes. Undefined for anything else.
 */
export function decodeSecretsKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return undefined;
  if (/[+/]/.test(t) && /[-_]/.test(t)) return undefined; // two alphabets mixed: not a key anyone generated
  const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/** The keys of a ring's text (current first), or a message saying what is wrong. */
export function decodeSecretsKeyring(text: string): { keys: Buffer[] } | { error: string } {
  return decodeKeyring(text, decodeSecretsKey, SECRETS_KEY_FORMAT);
}

/** A value could not be opened: the message says why, never what. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  /** Keys by the hex of their id; the current one first. */
  readonly #keys = new Map<string, Buffer>();
  /** Hex of the current key's id: what new values carry. */
  readonly keyId: string;

  /** `keys[0]` is current; the others only open. `variable` names the ring in messages. */
  constructor(keys: Buffer | readonly Buffer[], private readonly variable = 'SECRETS_KEY') {
    const ring = Buffer.isBuffer(keys) ? [keys] : keys;
    if (ring.length === 0) throw new Error('SecretBox: at least one key');
    for (const key of ring) {
      if (key.length !== 32) throw new Error('SecretBox: every key must be 32 bytes');
      const id = keyIdOf(key).toString('hex');
      if (!this.#keys.has(id)) this.#keys.set(id, Buffer.from(key));
    }
    this.keyId = keyIdOf(ring[0] as Buffer).toString('hex');
  }

  /** From a ring's text; throws when it is not one (config validation says so first). */
  static fromText(text: string, variable = 'SECRETS_KEY'): SecretBox {
    const ring = decodeSecretsKeyring(text);
    if ('error' in ring) throw new Error(`${variable}: ${ring.error}`);
    return new SecretBox(ring.keys, variable);
  }

  /** Encrypts `plaintext`, bound to `context` (where it is stored). */
  seal(plaintext: string | Uint8Array, context: string): Buffer {
    const key = this.#keys.get(this.keyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), Buffer.from(this.keyId, 'hex'), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Decrypts a sealed value; throws SecretBoxError naming the problem (unknown key, altered, unreadable). */
  open(sealed: Uint8Array, context: string): string {
    return this.openBytes(sealed, context).toString('utf8');
  }

  /** `open` for binary plaintext (Temporal payloads). */
  openBytes(sealed: Uint8Array, context: string): Buffer {
    const keyId = this.sealedKeyId(sealed, context);
    const key = this.#keys.get(keyId);
    if (!key) {
      throw new SecretBoxError(
        `a stored ${describe(context)} was encrypted with another ${this.variable} (key id ${keyId}; this process has ${[...this.#keys.keys()].join(', ')}): ` +
          'run with the key the values were written with in the ring',
      );
    }
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    const iv = buf.subarray(1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
    const tag = buf.subarray(1 + KEY_ID_BYTES + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(buf.subarray(HEADER_BYTES)), decipher.final()]);
    } catch {
      throw new SecretBoxError(`a stored ${describe(context)} failed authentication (altered, or moved from another owner)`);
    }
  }

  /** The hex key id a sealed value carries; throws SecretBoxError when it is not a sealed value. */
  sealedKeyId(sealed: Uint8Array, context = ''): string {
    if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) {
      throw new SecretBoxError(`a stored ${describe(context)} is not in a format this version reads`);
    }
    return Buffer.from(sealed.subarray(1, 1 + KEY_ID_BYTES)).toString('hex');
  }

  /** Whether a sealed value is already under the current key (rekey skips it). */
  isCurrent(sealed: Uint8Array): boolean {
    return this.sealedKeyId(sealed) === this.keyId;
  }
}

function keyIdOf(key: Buffer): Buffer {
  return createHash('sha256').update('hosted-agents secrets key id\0').update(key).digest().subarray(0, KEY_ID_BYTES);
}

/** `secret API_TOKEN of agent agt_…` from a context built by `sealContext`. */
function describe(context: string): string {
  try {
    const [kind, ownerKind, ownerId, name] = JSON.parse(context) as string[];
    return `${kind} ${name} of ${ownerKind} ${ownerId}`;
  } catch {
    return 'value';
  }
}

/** The additional authenticated data of a stored value: what it is and whose. */
export function sealContext(kind: 'secret' | 'connection' | 'oauth-verifier', ownerKind: 'agent' | 'conversation' | 'end_user', ownerId: string, name: string): string {
  return JSON.stringify([kind, ownerKind, ownerId, name]);
}
