/** A bad configuration value: names the variable and what it expects. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly expectation: string,
  ) {
    super(`${variable}: ${expectation}`);
    this.name = 'ConfigError';
  }
}
