import { z } from 'zod';
import { errorCodes, type ErrorCode, isRetryableStatus } from '../../domain/errors';
import { turnErrorCodes, turnEventSchema } from '../../domain/turn-events';

/**
 * The prose of the OpenAPI document that no route carries: what each tag groups (Redoc shows it
 * under the tag's heading, which would otherwise stand empty) and the document's introduction.
 * A route whose tag is missing here fails the document's build.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Operations: 'Health and readiness probes, this document, and the operator tools (a worker round trip, the Temporal codec endpoint).',
  Workspace: 'The workspace the API key belongs to: its name and credit balance.',
  Agents:
    'Agents and their versions: every change to an agent\'s configuration makes a new version (`ver_…`). Also its workflows, triggers, credit cap, allowed origins, visitor identity and evaluation cases (not versioned).',
  Webhooks: "Inbound URLs of an agent's `webhook` triggers (each request starts one run) and the signing secret of outbound result deliveries.",
  Knowledge: "An agent's knowledge files, which the `knowledge.search` tool searches.",
  Projects: 'Projects: a manager that hands tasks to member agents, with conversations and files of their own.',
  'Conversation files': "A conversation's files (what its agent's file tools read and write) and short-lived signed URLs to them.",
  Conversations: 'Conversations with an agent and their turns. Asking answers with the turn as Server-Sent Events ([Turn events](#tag/Turn-events)).',
  Credentials: 'Secrets and connections (OAuth tokens) that agents need, for the agent, one conversation or an end user, and the OAuth flow that supplies them.',
  'End users': "End users of your product, by your own id: their conversations and the credentials that serve all of them.",
  Deployments: 'Publishing a freelancer agent: a test URL for a version, production deploys with a health check, rollback, and the publishable token of public chat.',
  Domains: 'Custom domains for published agents, with certificates issued automatically.',
  Audit: "The workspace's audit log, for owners: who changed what, when and from where; as pages or as JSON lines.",
  Members: "The workspace's members and their roles (owner, builder, reviewer, viewer), invites by one-time link, and reset links.",
  'Sign-in': 'Signing in as a member (password, one-time links, an identity provider), the session behind the `ha_session` cookie, and signing out.',
  Public: "What a published agent's hosted page and embed call, with the publishable token (`agt_pk_…`) instead of an API key.",
};

/**
 * Every error code as a markdown table (code, status, meaning): the answers' codes, then the codes
 * of a turn's `error` event. The one text of both references: the document's "Errors" section and
 * docs/http-api.md "Error codes" (test/docs/error-codes.unit.test.ts keeps the page equal to it).
 */
export function errorCodeTable(): string {
  const rows = [
    ...Object.entries(errorCodes).map(([code, { status, doc }]) => `| \`${code}\` | ${status} | ${doc} |`),
    ...Object.entries(turnErrorCodes).map(([code, doc]) => `| \`${code}\` | — | Not an answer's code: the \`code\` of a turn's \`error\` event. ${doc} |`),
  ];
  return ['| code | status | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** Trait tags: sections of the page without operations (Redoc's `x-traitTag`), after the introduction. */
export function referenceSections(): Array<{ name: string; description: string; 'x-traitTag': true }> {
  return [
    {
      name: 'Errors',
      description: [
        'Every non-2xx answer has the Error body. Branch on `code`; `message` is for people and may be reworded; `retryable` is true for 5xx and 429 only, and `retryAfter` (seconds) comes with 429 and 503.',
        '',
        errorCodeTable(),
      ].join('\n'),
      'x-traitTag': true,
    },
    {
      name: 'Turn events',
      description: [
        'Asking (`POST /v1/conversations/{conversationId}/turns`, public chat) answers with the turn as Server-Sent Events, and `GET /v1/turns/{turnId}/events` follows a turn again after `Last-Event-ID`. Each event is `id: <seq>` (1, 2, 3… with no gaps), `event: <type>`, `data: <the event as JSON>` and a blank line; a `: keepalive` comment comes every 15 s. Every stream ends with exactly one `done` or `error`. The event types:',
        '',
        ...turnEventSchema.options.map((o) => `- \`${o.shape.type.value}\`: ${z.globalRegistry.get(o)?.description ?? ''}`),
        '',
        'Their fields (pick a type):',
        '',
        '<SchemaDefinition schemaRef="#/components/schemas/TurnEvent" showReadOnly={true} showWriteOnly={false} />',
      ].join('\n'),
      'x-traitTag': true,
    },
  ];
}

/** The document's introduction, rendered by Redoc above the first tag. */
export const API_INTRODUCTION =
  'Calls carry an API key: `Authorization: Bearer sk_…` (`npm start` prints one for its dev workspace; `hosted-agents key create` makes more). Lists are `{ "data": [...] }`. Timestamps are ISO 8601 UTC. Failures answer the Error body ([Errors](#tag/Errors) lists every code); turns stream as Server-Sent Events ([Turn events](#tag/Turn-events)).';

/** Each error code's answer status and meaning, as the `code` enum's descriptions (`x-enumDescriptions`, which Redoc shows as a table). */
export function errorCodeDescriptions(): Record<ErrorCode, string> {
  return Object.fromEntries(Object.entries(errorCodes).map(([code, { status, doc }]) => [code, `${status}: ${doc}`])) as Record<ErrorCode, string>;
}

/**
 * An example Error body with `code`, as the error middleware (api/middleware/errors.ts) sends it:
 * `retryable` for 5xx and 429 only, `retryAfter` on 429 and 503. The message stands for the
 * human text, which varies.
 */
export function errorExample(code: ErrorCode): { error: { code: ErrorCode; message: string; retryable: boolean; retryAfter?: number } } {
  const { status, doc } = errorCodes[code];
  return {
    error: {
      code,
      message: doc,
      retryable: isRetryableStatus(status),
      ...(status === 429 || status === 503 ? { retryAfter: 2 } : {}),
    },
  };
}
