import type { Knex } from 'knex';

/**
 * Sign-in with an OpenID Connect provider (issue 50; docs/security.md, "Sign-in with an identity
 * provider (OIDC)"): `oidc_sign_ins`, one row per sign-in started and not yet finished.
 *
 * - `state_hash` is the SHA-256 of the `state` sent to the provider (the state itself is never
 *   stored; the browser that started holds it in an HttpOnly cookie, api/cookies/oauth-cookie.ts).
 * - `secrets` is the sealed JSON of what must never reach the provider or the page: the PKCE
 *   verifier, the ID token's expected `nonce`, and the invite token when the sign-in accepts one.
 * - `workspace_id`: the workspace the person asked to sign in to (a hint; null: any of theirs).
 *   No foreign key: a hint for a workspace gone is the same as an unknown one, and the row lives minutes.
 * - `return_to`: the same-origin path the browser is sent to once signed in.
 * - The callback consumes a row once (`used_at`), before `expires_at`; old rows are pruned as new ones are made.
 * A new table: the release before this one ignores it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('oidc_sign_ins', (t) => {
    t.text('state_hash').primary();
    t.binary('secrets').notNullable();
    t.text('workspace_id');
    t.text('return_to').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('oidc_sign_ins');
}
