import { decodeSecretsKeyring, SECRETS_KEY_FORMAT, SecretBox } from '../domain/secret-box';
import { type Config, ConfigError } from './env';

/** The secret box of the SECRETS_KEY ring; a ConfigError naming it when unset (`npm start` makes one). */
export function secretBoxFromConfig(config: Pick<Config, 'SECRETS_KEY'>): SecretBox {
  const ring = config.SECRETS_KEY === undefined ? undefined : decodeSecretsKeyring(config.SECRETS_KEY);
  if (!ring || 'error' in ring) throw new ConfigError('SECRETS_KEY', `required: ${SECRETS_KEY_FORMAT}; encrypts secret and connection values`);
  return new SecretBox(ring.keys);
}
