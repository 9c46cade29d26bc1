import type { Knex } from 'knex';

/**
 * Names that cannot be taken (docs/publishing.md: Slugs and URLs, Custom domains).
 * - `slug_claims`: every production host label ever given, with the workspace it was given to.
 *   A row outlives its agent (and its workspace: no foreign key), so a released slug is a
 *   tombstone only that workspace may reuse; a CNAME at an old host never lands on a stranger.
 * - `custom_domains`: a name may be claimed by several workspaces at once (one claim per
 *   workspace); the claim whose DNS proves it (`verified_at`) holds it, at most one per name.
 *   Each claim has a `verification_token`, the value of its `_hosted-agents.<name>` TXT record.
 * - `acme_challenges` point at the claim (`domain_id`), since the name alone is no longer a key.
 */
// Contract: not online-safe when released (the release before 018 inserts custom_domains without
// verification_token and with ON CONFLICT (domain), whose key this drops, and acme_challenges
// without domain_id: adding a domain and answering HTTP-01 fail on its API and workers until they
// are replaced); a rolling upgrade from before 018 must stop the old API and workers first.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('slug_claims', (t) => {
    t.text('slug').primary();
    t.text('workspace_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(`insert into slug_claims (slug, workspace_id) select slug, workspace_id from agents where slug is not null`);

  await db.schema.alterTable('acme_challenges', (t) => {
    t.dropForeign(['domain']);
    t.text('domain_id');
  });
  await db.raw(`update acme_challenges c set domain_id = d.id from custom_domains d where d.domain = c.domain`);
  await db.raw(`delete from acme_challenges where domain_id is null`);

  await db.schema.alterTable('custom_domains', (t) => {
    t.dropPrimary();
    t.primary(['id']);
    t.unique(['domain', 'workspace_id']);
    t.text('verification_token');
    t.timestamp('verified_at', { useTz: true });
  });
  // Existing tokens need not be secret (they are published in DNS), only distinct per claim.
  await db.raw(`update custom_domains set verification_token = md5(id || random()::text)`);
  await db.raw(`update custom_domains set verified_at = updated_at where status in ('issuing', 'active', 'renewing')`);
  await db.raw(`alter table custom_domains alter column verification_token set not null`);
  await db.raw(`create unique index custom_domains_one_holder on custom_domains (domain) where verified_at is not null`);

  await db.schema.alterTable('acme_challenges', (t) => {
    t.text('domain_id').notNullable().alter();
    t.foreign('domain_id').references('custom_domains.id').onDelete('CASCADE');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('acme_challenges', (t) => {
    t.dropForeign(['domain_id']);
    t.dropColumn('domain_id');
  });
  // One row per name again: claims that hold nothing give way to the holder (or the oldest).
  await db.raw(`
    delete from custom_domains d using custom_domains o
    where d.domain = o.domain and d.id <> o.id
      and (d.verified_at is null and (o.verified_at is not null or o.created_at < d.created_at or (o.created_at = d.created_at and o.id < d.id)))`);
  await db.raw('drop index if exists custom_domains_one_holder');
  await db.schema.alterTable('custom_domains', (t) => {
    t.dropUnique(['domain', 'workspace_id']);
    t.dropColumn('verification_token');
    t.dropColumn('verified_at');
    t.dropPrimary();
    t.primary(['domain']);
  });
  await db.schema.alterTable('acme_challenges', (t) => {
    t.foreign('domain').references('custom_domains.domain').onDelete('CASCADE');
  });
  await db.schema.dropTable('slug_claims');
}
