import type { Config } from '../config/env';

/** What `npm start` knows once everything runs, for its banner. */
export interface BannerFacts {
  temporalUI?: string;
  temporalAddress: string;
  embeddedDatabase: boolean;
  workspaceId: string;
  workspaceCreated: boolean;
  apiKey: string;
  /** The dev workspace's owner and a fresh one-time sign-in link for them (made at every start). */
  owner?: { email: string; signInLink: string; ttlMinutes: number };
  credentialsPath: string;
  /** Whether LOG_LEVEL was left to `npm start`'s default (warnings only). */
  quietLogs: boolean;
}

/** The quick start's base URL when SERVICE_BASE_URL is unset (examples/quick-start.ts, the SDK). */
const SDK_DEFAULT_BASE_URL = 'http://localhost:8080';

/** The model line(s): what answers, and with the offline model, how to get a real one. */
function modelLines(models: Config['models']): string[] {
  const { standard, premium } = models;
  const name = (m: { provider: string; model: string }) => `${m.provider}:${m.model}`;
  const same = name(standard) === name(premium);
  const lines = [same ? `  Model        ${name(standard)}` : `  Models       standard ${name(standard)}, premium ${name(premium)}`];
  if (standard.provider === 'local' || premium.provider === 'local') {
    lines.push(
      '               the offline model: it echoes what you say, and a line `/tool <name> {json}` makes it call a tool.',
      '               A real model: set OPENAI_API_KEY or ANTHROPIC_API_KEY (or MODEL_STANDARD=provider:model) and start again.',
    );
  }
  return lines;
}

/**
 * The tools line, while private addresses are blocked (OUTBOUND_ALLOW_PRIVATE unset, the default):
 * an HTTP tool at http://localhost:… is saved, with a warning, and fails at every call — say so
 * before someone tries.
 */
function outboundLines(allowPrivate: Config['OUTBOUND_ALLOW_PRIVATE']): string[] {
  if (allowPrivate === true || (Array.isArray(allowPrivate) && allowPrivate.includes('true'))) return [];
  const except = Array.isArray(allowPrivate) && allowPrivate.length > 0 ? ` (but ${allowPrivate.join(', ')})` : '';
  return [`  Tools        private addresses${except} are blocked for HTTP tools, MCP servers and web.fetch; OUTBOUND_ALLOW_PRIVATE=true allows them`];
}

/**
 * The lines `npm start` prints when it is ready: where everything is, which model answers, and the
 * one command to try next, with the key filled in.
 */
export function startBanner(config: Config, f: BannerFacts): string[] {
  const baseEnv = config.baseURL === SDK_DEFAULT_BASE_URL ? '' : ` SERVICE_BASE_URL=${config.baseURL}`;
  return [
    '',
    'Hosted Agents is running.',
    `  API          ${config.baseURL}`,
    `  API docs     ${config.baseURL}/docs`,
    `  Embed        ${config.embedURL}/embed/v1.js`,
    `  Temporal UI  ${f.temporalUI ?? '(remote cluster: use its own UI)'}`,
    `  Temporal     ${f.temporalAddress} (namespace ${config.TEMPORAL_NAMESPACE})`,
    `  PostgreSQL   ${f.embeddedDatabase ? `embedded, data in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
    ...modelLines(config.models),
    ...outboundLines(config.OUTBOUND_ALLOW_PRIVATE),
    `  Workspace    ${f.workspaceId}${f.workspaceCreated ? ' (created: dev, 1000 credits)' : ''}`,
    `  API key      ${f.apiKey}`,
    ...(f.owner ? [`  Sign in      ${f.owner.signInLink}`, `               as ${f.owner.email} (owner); works once, for ${f.owner.ttlMinutes} minutes; a new one at every start`] : []),
    `  Credentials  ${f.credentialsPath}`,
    ...(f.quietLogs ? ['  Logs         warnings only; LOG_LEVEL=info shows every request'] : []),
    '',
    'Next: an agent, a conversation and a streamed reply, from another terminal in this folder:',
    `  SERVICE_API_KEY=${f.apiKey}${baseEnv} npx tsx examples/quick-start.ts`,
    '',
    'Stop with Ctrl-C.',
    '',
  ];
}
