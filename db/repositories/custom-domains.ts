import type { Knex } from 'knex';
import { type DomainStatus, servingStatuses } from '../../domain/custom-domains';
import { newId, randomToken } from '../../domain/ids';
import type { Db } from '../connect';

export interface CustomDomainRow {
  domain: string;
  id: string;
  workspace_id: string;
  agent_id: string;
  status: DomainStatus;
  failure: string | null;
  cert_pem: string | null;
  key_sealed: Buffer | null;
  not_before: Date | null;
  not_after: Date | null;
  cert_serial: string | null;
  /** The value of the claim's `_hosted-agents.<domain>` TXT record (public: it is published in DNS). */
  verification_token: string;
  /** When its DNS proved the claim; set on the one claim that holds the name. */
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What attaching needs to know of the agent: whether it is published and at which host. */
export interface DomainAgent {
  role: 'freelancer' | 'teammate';
  slug: string | null;
  prodVersion: number | null;
}

/** The certificate a TLS handshake needs, still sealed. */
export interface StoredCertificate {
  id: string;
  domain: string;
  certPem: string;
  keySealed: Buffer;
}

/**
 * Custom domains (one claim per workspace and name; the claim DNS proved holds the name), their
 * ACME challenge answers and the ACME accounts. Owner reads are scoped by workspace; the worker's
 * writes are keyed by the row id, so a run of a removed claim never writes into another one.
 */
export class CustomDomainsRepository {
  constructor(private readonly db: Db) {}

  async agent({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<DomainAgent | undefined> {
    const row = await this.db('agents').where({ id: agentId, workspace_id: workspaceId }).first('role', 'slug', 'prod_version');
    return row ? { role: row.role, slug: row.slug, prodVersion: row.prod_version } : undefined;
  }

  /**
   * The workspace's claim on `domain` for the agent, or its claim already there: `created` is
   * false when the workspace had one (for this agent or another: the caller tells them apart by
   * `row.agent_id`). Other workspaces' claims on the name do not matter here: DNS decides.
   */
  async attach(input: { domain: string; workspaceId: string; agentId: string }): Promise<{ row: CustomDomainRow; created: boolean }> {
    const [inserted] = await this.db('custom_domains')
      .insert({
        domain: input.domain,
        id: newId('domain'),
        workspace_id: input.workspaceId,
        agent_id: input.agentId,
        status: 'pending_dns',
        verification_token: randomToken(32),
      })
      .onConflict(['domain', 'workspace_id'])
      .ignore()
      .returning('*');
    if (inserted) return { row: inserted as CustomDomainRow, created: true };
    const existing = await this.get({ workspaceId: input.workspaceId, domain: input.domain });
    if (!existing) return this.attach(input); // removed between the two statements: try again
    return { row: existing, created: false };
  }

  /** A failed claim of this agent starts over (its owner fixed the DNS and adds it again). */
  async restart({ id }: { id: string }): Promise<CustomDomainRow | undefined> {
    const [row] = await this.db('custom_domains')
      .where({ id, status: 'failed' })
      .update({ status: 'pending_dns', failure: null, verified_at: null, updated_at: this.db.fn.now() })
      .returning('*');
    return row as CustomDomainRow | undefined;
  }

  /**
   * Makes the claim the name's holder once its DNS proved it: `held` when it is (now or already),
   * `taken` while another claim holds the name, `gone` when the claim was removed.
   */
  async verify({ id }: { id: string }): Promise<'held' | 'taken' | 'gone'> {
    return this.db.transaction(async (trx) => {
      const row = await trx<CustomDomainRow>('custom_domains').where({ id }).forUpdate().first('domain', 'verified_at');
      if (!row) return 'gone';
      if (row.verified_at) return 'held';
      // Serialised per name, so two claims proved at once cannot both hold it.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`custom-domain:${row.domain}`]);
      const holder = await trx('custom_domains').where({ domain: row.domain }).whereNotNull('verified_at').first('id');
      if (holder) return 'taken';
      await trx('custom_domains').where({ id }).update({ verified_at: trx.fn.now(), updated_at: trx.fn.now() });
      return 'held';
    });
  }

  async get({ workspaceId, domain }: { workspaceId: string; domain: string }): Promise<CustomDomainRow | undefined> {
    return this.db<CustomDomainRow>('custom_domains').where({ workspace_id: workspaceId, domain }).first();
  }

  async list({ workspaceId }: { workspaceId: string }): Promise<CustomDomainRow[]> {
    return this.db<CustomDomainRow>('custom_domains').where({ workspace_id: workspaceId }).orderBy('created_at').orderBy('domain');
  }

  /** Removes the domain (its challenges go with it); the removed row, if there was one. */
  async remove({ workspaceId, domain }: { workspaceId: string; domain: string }): Promise<CustomDomainRow | undefined> {
    const [row] = await this.db('custom_domains').where({ workspace_id: workspaceId, domain }).delete().returning('*');
    return row as CustomDomainRow | undefined;
  }

  /** The row a run works on, with the agent's production host label; undefined once removed. */
  async forRun({ id }: { id: string }): Promise<(CustomDomainRow & { slug: string | null }) | undefined> {
    return this.db('custom_domains as d').join('agents as a', 'a.id', 'd.agent_id').where('d.id', id).first('d.*', 'a.slug');
  }

  /** Sets the status of the row (and the failure text, null to clear it). False when it is gone. */
  async setStatus({ id, status, failure }: { id: string; status: DomainStatus; failure: string | null }, trx?: Knex.Transaction): Promise<boolean> {
    // A failed claim holds nothing: the name is free for whichever claim proves it next.
    const release = status === 'failed' ? { verified_at: null } : {};
    const n = await (trx ?? this.db)('custom_domains').where({ id }).update({ status, failure, ...release, updated_at: this.db.fn.now() });
    return n > 0;
  }

  /** Notes why an attempt of an order in progress (`issuing`, `renewing`) failed; the status stays. */
  async noteAttemptFailure({ id, failure }: { id: string; failure: string }): Promise<void> {
    await this.db('custom_domains').where({ id }).whereIn('status', ['issuing', 'renewing']).update({ failure, updated_at: this.db.fn.now() });
  }

  /** Stores a new certificate and makes the domain `active`. False when the row is gone. */
  async storeCertificate(input: { id: string; certPem: string; keySealed: Buffer; notBefore: Date; notAfter: Date; serial: string }): Promise<boolean> {
    const n = await this.db('custom_domains').where({ id: input.id }).update({
      status: 'active',
      failure: null,
      cert_pem: input.certPem,
      key_sealed: input.keySealed,
      not_before: input.notBefore,
      not_after: input.notAfter,
      cert_serial: input.serial,
      updated_at: this.db.fn.now(),
    });
    return n > 0;
  }

  /** The certificate of a served domain (active or renewing); undefined otherwise. */
  async servedCertificate({ domain }: { domain: string }): Promise<(StoredCertificate & { agentId: string }) | undefined> {
    const row = await this.db<CustomDomainRow>('custom_domains')
      .where({ domain })
      .whereNotNull('verified_at')
      .whereIn('status', servingStatuses)
      .whereNotNull('cert_pem')
      .first('id', 'domain', 'agent_id', 'cert_pem', 'key_sealed');
    if (!row?.cert_pem || !row.key_sealed) return undefined;
    return { id: row.id, domain: row.domain, agentId: row.agent_id, certPem: row.cert_pem, keySealed: row.key_sealed };
  }

  async putChallenge(input: { token: string; domainId: string; domain: string; keyAuthorization: string }): Promise<void> {
    await this.db('acme_challenges')
      .insert({ token: input.token, domain_id: input.domainId, domain: input.domain, key_authorization: input.keyAuthorization })
      .onConflict('token')
      .merge();
  }

  async deleteChallenge({ token }: { token: string }): Promise<void> {
    await this.db('acme_challenges').where({ token }).delete();
  }

  /** The key authorization for `token`, only when asked on the host it was issued for. */
  async challenge({ token, domain }: { token: string; domain: string }): Promise<string | undefined> {
    const row = await this.db('acme_challenges').where({ token, domain }).first('key_authorization');
    return row?.key_authorization as string | undefined;
  }

  async accountKey({ directoryUrl }: { directoryUrl: string }): Promise<Buffer | undefined> {
    const row = await this.db('acme_accounts').where({ directory_url: directoryUrl }).first('key_sealed');
    return row?.key_sealed as Buffer | undefined;
  }

  /** Stores the account key unless another worker stored one first; returns the one that stays. */
  async keepAccountKey({ directoryUrl, keySealed }: { directoryUrl: string; keySealed: Buffer }): Promise<Buffer> {
    await this.db('acme_accounts').insert({ directory_url: directoryUrl, key_sealed: keySealed }).onConflict('directory_url').ignore();
    return (await this.accountKey({ directoryUrl }))!;
  }
}
