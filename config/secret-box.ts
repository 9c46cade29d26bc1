import { decodeSecretsKey, SECRETS_KEY_FORMAT, SecretBox } from '../domain/secret-box';
import { type Config, ConfigError } from './env';

/** The secret box of SECRETS_KEY; a ConfigError naming it when unset (`npm start` makes one). */
export function secretBoxFromConfig(config: Pick<Config, 'SECRETS_KEY'>): SecretBox {
  const key = config.SECRETS_KEY === undefined ? undefined : decodeSecretsKey(config.SECRETS_KEY);
  if (!key) throw new ConfigError('SECRETS_KEY', `required: ${SECRETS_KEY_FORMAT}; encrypts secret and connection values`);
  return new SecretBox(key);
}
