import assert from 'node:assert/strict';
import { createDb, type Db } from '../../db/connect';
import { createRepositories } from '../../db/repositories';
import { agentConfigSchema } from '../../domain/agent';
import { newId } from '../../domain/ids';
import { fixture } from '../support/fixture';

/**
 * The previous release's code keeps running on the migrated schema during a rolling upgrade
 * (docs/operations.md#upgrading). These write rows the way that code did, on this checkout's schema.
 */
describe('migrations: the previous release runs on the migrated schema', () => {
  let db: Db;
  before(() => (db = createDb({ url: fixture().databaseUrl, poolMax: 2 })));
  after(() => db.destroy());

  /** A workspace and a freelancer (not the default role), made by this release's repositories. */
  async function freelancer() {
    const repos = createRepositories(db);
    const workspace = await repos.workspaces.create({ name: 'migrations-online', credits: 0 });
    const config = agentConfigSchema.parse({ name: 'Old release' });
    const agent = await db.transaction((trx) =>
      repos.agents.create({ workspaceId: workspace.id, id: newId('agent'), role: 'freelancer', config }, trx),
    );
    return { agentId: agent.id, config };
  }

  it('a version inserted without role, as before 020, takes its agent’s role (021)', async () => {
    const { agentId, config } = await freelancer();
    // The release before 020 wrote a new version like this (db/repositories/agents.ts insertVersion).
    const [row] = await db('agent_versions')
      .insert({ id: newId('version'), agent_id: agentId, number: 2, config: JSON.stringify(config) })
      .returning(['number', 'role']);
    assert.deepEqual(row, { number: 2, role: 'freelancer' });
  });

  it('a version inserted with a role keeps it', async () => {
    const { agentId, config } = await freelancer();
    const [row] = await db('agent_versions')
      .insert({ id: newId('version'), agent_id: agentId, number: 2, role: 'teammate', config: JSON.stringify(config) })
      .returning(['number', 'role']);
    assert.deepEqual(row, { number: 2, role: 'teammate' });
  });
});
