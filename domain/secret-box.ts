import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encryption at rest of secret and connection values: AES-256-GCM under the operator's
 * SECRETS_KEY, a random 12-byte IV per value. A sealed value is one byte string:
 *
 *   version (1 byte, 0x01) ‖ key id (4 bytes) ‖ IV (12) ‖ tag (16) ‖ ciphertext
 *
 * The key id (the first 4 bytes of a SHA-256 of the key) only tells "another key" apart from
 * "altered" when opening fails. The caller binds each value to where it is stored (owner and
 * name, as additional authenticated data), so a value copied to another row does not open.
 */

const VERSION = 0x01;
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES;

/** What SECRETS_KEY must be, for messages. */
export const SECRETS_KEY_FORMAT = '32 random bytes as base64, base64url or 64 hex characters (e.g. openssl rand -base64 32)';

/**
 * The 32 key bytes of SECRETS_KEY text: 64 hex characters, or base64 or base64url (padding
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

/** A value could not be opened: the message says why, never what. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  readonly #key: Buffer;
  /** Hex of the key id sealed values carry. */
  readonly keyId: string;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox: the key must be 32 bytes');
    this.#key = Buffer.from(key);
    this.keyId = keyIdOf(this.#key).toString('hex');
  }

  /** From SECRETS_KEY text; throws when it is not a key (config validation says so first). */
  static fromText(text: string): SecretBox {
    const key = decodeSecretsKey(text);
    if (!key) throw new Error(`SECRETS_KEY: ${SECRETS_KEY_FORMAT}`);
    return new SecretBox(key);
  }

  /** Encrypts `plaintext`, bound to `context` (where it is stored). */
  seal(plaintext: string, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), keyIdOf(this.#key), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Decrypts a sealed value; throws SecretBoxError naming the problem (another key, altered, unreadable). */
  open(sealed: Buffer, context: string): string {
    if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) {
      throw new SecretBoxError(`a stored ${describe(context)} is not in a format this version reads`);
    }
    const keyId = sealed.subarray(1, 1 + KEY_ID_BYTES);
    if (!keyId.equals(keyIdOf(this.#key))) {
      throw new SecretBoxError(
        `a stored ${describe(context)} was encrypted with another SECRETS_KEY (key id ${keyId.toString('hex')}; this process has ${this.keyId}): ` +
          'run with the key the values were written with',
      );
    }
    const iv = sealed.subarray(1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
    const tag = sealed.subarray(1 + KEY_ID_BYTES + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`a stored ${describe(context)} failed authentication (altered, or moved from another owner)`);
    }
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
