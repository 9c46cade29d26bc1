import assert from 'node:assert/strict';
import type { AsyncLocalStorage } from 'node:async_hooks';
import { Connection } from '@temporalio/client';
import { connectTemporalClient, pingTemporal } from '../../infra/temporal-connection';
import { fixture } from '../support/fixture';

/**
 * Whether an AsyncLocalStorage is switched on. Node 20 and 22 keep it in `enabled`; while any
 * storage is on, every promise of the process runs a hook (infra/temporal-connection.ts).
 */
function switchedOn(storage: AsyncLocalStorage<unknown>): boolean {
  const flag = (storage as unknown as { enabled?: unknown }).enabled;
  assert.equal(typeof flag, 'boolean', `this check reads AsyncLocalStorage's \`enabled\` (Node 20, 22); node ${process.version} has none`);
  return flag as boolean;
}

describe('Temporal client call context', () => {
  it('is switched off once connected and once each ping is done, and a ping still has its deadline', async () => {
    const client = await connectTemporalClient({ address: fixture().temporalAddress, namespace: 'default', tls: false });
    try {
      const connection = client.connection;
      assert.ok(connection instanceof Connection);
      assert.equal(switchedOn(connection.callContextStorage), false, 'left on by the connect check');

      // Overlapping pings: the one that ends first must not take the other's deadline away.
      const slow = pingTemporal(client, 5000);
      const fast = pingTemporal(client, 5000);
      assert.deepEqual(await Promise.all([slow, fast]), [true, true]);
      assert.equal(switchedOn(connection.callContextStorage), false, 'left on by the pings');

      // A deadline already past is still applied: the ping fails instead of waiting for an answer.
      assert.equal(await pingTemporal(client, -1), false);
      assert.equal(switchedOn(connection.callContextStorage), false, 'left on by a failed ping');
    } finally {
      await client.connection.close();
    }
  });
});
