import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { Workspace } from '../../domain/workspace';
import type { Db } from '../connect';
import { iso } from '../rows';

interface WorkspaceRow {
  id: string;
  name: string;
  credits: number;
  created_at: Date;
  diagnostics_allowed: boolean;
  sign_in_domains: string[];
}

function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, name: row.name, credits: row.credits, createdAt: iso(row.created_at), signInDomains: row.sign_in_domains };
}

/** Typed queries on `workspaces` and their `credit_debits`. Every method takes one object and an optional transaction. */
export class WorkspacesRepository {
  constructor(private readonly db: Db) {}

  async create(input: { name: string; credits: number; id?: string }, trx?: Knex.Transaction): Promise<Workspace> {
    const [row] = await (trx ?? this.db)<WorkspaceRow>('workspaces')
      .insert({ id: input.id ?? newId('workspace'), name: input.name, credits: input.credits })
      .returning('*');
    return toWorkspace(row!);
  }

  async get({ id }: { id: string }, trx?: Knex.Transaction): Promise<Workspace | undefined> {
    const row = await (trx ?? this.db)<WorkspaceRow>('workspaces').where({ id }).first();
    return row ? toWorkspace(row) : undefined;
  }

  async list(trx?: Knex.Transaction): Promise<Workspace[]> {
    const rows = await (trx ?? this.db)<WorkspaceRow>('workspaces').orderBy('created_at', 'asc').orderBy('id');
    return rows.map(toWorkspace);
  }

  /** Adds (or, with a negative amount, removes) credits atomically; undefined when no such workspace. */
  async addCredits({ id, amount }: { id: string; amount: number }, trx?: Knex.Transaction): Promise<Workspace | undefined> {
    const [row] = await (trx ?? this.db)<WorkspaceRow>('workspaces')
      .where({ id })
      .update({ credits: (trx ?? this.db).raw('credits + ?', [amount]) })
      .returning('*');
    return row ? toWorkspace(row) : undefined;
  }

  /**
   * Debits a turn's cost once: the debit is keyed by the turn id, so a retried activity finds it
   * recorded and removes nothing more. True when this call debited.
   */
  async debitTurn(
    { workspaceId, turnId, amount }: { workspaceId: string; turnId: string; amount: number },
    trx?: Knex.Transaction,
  ): Promise<boolean> {
    // One statement, atomic on its own: the debit row (keyed by the turn) and, only when it is new, the balance.
    const result = await (trx ?? this.db).raw(
      `with d as (insert into credit_debits (turn_id, workspace_id, amount) values (?, ?, ?) on conflict (turn_id) do nothing returning amount)
       update workspaces set credits = credits - d.amount from d where workspaces.id = ? returning workspaces.id`,
      [turnId, workspaceId, amount, workspaceId],
    );
    return (result as { rows: unknown[] }).rows.length > 0;
  }

  /** The operator flag that lets a workspace run the diagnostics probe (docs/limits.md); undefined when no such workspace. */
  async setDiagnosticsAllowed({ id, allowed }: { id: string; allowed: boolean }, trx?: Knex.Transaction): Promise<Workspace | undefined> {
    const [row] = await (trx ?? this.db)<WorkspaceRow>('workspaces').where({ id }).update({ diagnostics_allowed: allowed }).returning('*');
    return row ? toWorkspace(row) : undefined;
  }

  /** The e-mail domains whose verified addresses may join by OIDC as viewers (docs/security.md); undefined when no such workspace. */
  async setSignInDomains({ id, domains }: { id: string; domains: string[] }, trx?: Knex.Transaction): Promise<Workspace | undefined> {
    const [row] = await (trx ?? this.db)<WorkspaceRow>('workspaces').where({ id }).update({ sign_in_domains: domains }).returning('*');
    return row ? toWorkspace(row) : undefined;
  }

  /** The workspaces that allow sign-in by OIDC from an e-mail domain (exactly that domain, lower-case), oldest first. */
  async allowingSignInDomain({ domain }: { domain: string }, trx?: Knex.Transaction): Promise<string[]> {
    const rows = await (trx ?? this.db)<WorkspaceRow>('workspaces').whereRaw('? = any(sign_in_domains)', [domain]).orderBy('created_at').orderBy('id').select('id');
    return rows.map((r) => r.id);
  }

  async diagnosticsAllowed({ id }: { id: string }): Promise<boolean> {
    const row = await this.db<WorkspaceRow>('workspaces').where({ id }).first('diagnostics_allowed');
    return row?.diagnostics_allowed === true;
  }
}
