import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { type Config, ConfigError } from '../config/env';
import { decodeSecretsKeyring, SECRETS_KEY_FORMAT, SecretBox } from '../domain/secret-box';

/**
 * Encryption of every Temporal payload (workflow and activity inputs and results, signals, memos,
 * failures' details): conversation content never reaches Temporal's history in plain text.
 * AES-256-GCM under the PAYLOAD_KEY ring (the secret box's format, domain/secret-box.ts). A payload
 * becomes `{ encoding: binary/encrypted, encryption-key-id: <hex> }` + the sealed bytes of the whole
 * original payload (its metadata included). Decoding picks the key by id from the ring, so after a
 * rotation the history written under the previous key still reads while that key stays in the ring;
 * a payload without our encoding (written before the codec was on) passes through unchanged.
 * Codecs run outside the workflow sandbox: determinism is untouched.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
/** Additional authenticated data: a sealed secret value can never pass for a payload. */
const CONTEXT = 'temporal-payload';

const text = (bytes: Uint8Array | null | undefined): string | undefined => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly box: SecretBox) {}

  // async: a failure rejects the promise (as the SDK expects) rather than throwing at the call.
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => ({
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: Buffer.from(this.box.keyId),
        },
        data: this.box.seal(temporal.api.common.v1.Payload.encode(payload).finish(), CONTEXT),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      if (!payload.data) throw new Error('an encrypted Temporal payload has no data');
      return temporal.api.common.v1.Payload.decode(this.box.openBytes(payload.data, CONTEXT));
    });
  }
}

/** The codec of the PAYLOAD_KEY ring; undefined when it is unset (then payloads travel as they are). */
export function payloadCodecFromConfig(config: Pick<Config, 'PAYLOAD_KEY'>): EncryptionCodec | undefined {
  if (config.PAYLOAD_KEY === undefined) return undefined;
  const ring = decodeSecretsKeyring(config.PAYLOAD_KEY);
  if ('error' in ring) throw new ConfigError('PAYLOAD_KEY', SECRETS_KEY_FORMAT);
  return new EncryptionCodec(new SecretBox(ring.keys, 'PAYLOAD_KEY'));
}
