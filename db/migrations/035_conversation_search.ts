import type { Knex } from 'knex';

/**
 * The workspace-wide conversation search (`GET /v1/conversations`, issue 51;
 * db/repositories/conversation-search.ts). New indexes only: the release before this one
 * ignores them (online-safe).
 *
 * - `conversations (workspace_id, started_at desc, id desc)`, without eval runs' conversations
 *   (the search leaves them out): the list's order and its keyset cursor, read in index order.
 * - `turns (conversation_id, started_at desc, id desc)`: each row's latest turn, one index probe.
 * - `conversations (workspace_id, started_by)`: a viewer's own conversations.
 * - Text: GIN over `to_tsvector('simple', …)` of the title and of each message's content. Not
 *   pg_trgm: it is a contrib extension the embedded PostgreSQL (infra/embedded-postgres.ts) is not
 *   sure to ship, and full text is built in. `simple` lower-cases and splits into words, with no
 *   stemming and no stop words; the search matches each word of the query as a word prefix.
 *   `search_document(text)` is the one expression both the indexes and the search use: ASCII
 *   punctuation becomes a space first, so the text parser sees plain words — left alone it reads
 *   `INVOICE-2026` as `invoice` and `-2026`, and `shop.example.com` as one host name.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(
    'create index conversations_search_order on conversations (workspace_id, started_at desc, id desc) where eval_run_id is null',
  );
  await db.raw('create index turns_latest_by_conversation on turns (conversation_id, started_at desc, id desc)');
  await db.raw('create index conversations_started_by on conversations (workspace_id, started_by) where started_by is not null');
  await db.raw(
    `create function search_document(body text) returns tsvector language sql immutable parallel safe
       as $$ select to_tsvector('simple'::regconfig, regexp_replace(body, '[[:punct:]]+', ' ', 'g')) $$`,
  );
  await db.raw(`create index conversations_title_words on conversations using gin (search_document(coalesce(title, '')))`);
  await db.raw('create index messages_content_words on messages using gin (search_document(content))');
}

export async function down(db: Knex): Promise<void> {
  for (const index of ['messages_content_words', 'conversations_title_words', 'conversations_started_by', 'turns_latest_by_conversation', 'conversations_search_order']) {
    await db.raw(`drop index if exists ${index}`);
  }
  await db.raw('drop function if exists search_document(text)');
}
