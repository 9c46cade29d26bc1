import { NativeConnection, Worker } from '@temporalio/worker';
import { workerIdentity } from '../../workers/identity';
import { workerOptions } from '../../config/worker-tuning';
import { bareActivities } from './activities';

/**
 * The bare baseline's worker process (bench:turns starts it like `hosted-agents worker`): one
 * Worker on each of two task queues, as ours polls `turns` and `ops`, with our Worker options
 * (config/worker-tuning.ts) and the cache size ours gets. Its workflow bundle is made beforehand by
 * bench:turns, as ours is by `npm run build` (the bundler is not in the process). No payload
 * codec, logger or database: the engine alone.
 * Arguments: <temporal address> <turns queue> <ops queue> <maxCachedWorkflows> <bundle file>.
 */
async function main(): Promise<void> {
  const [address, turnsQueue, opsQueue, cache, codePath] = process.argv.slice(2);
  if (!address || !turnsQueue || !opsQueue || !cache || !codePath) throw new Error('usage: worker.ts <address> <turns queue> <ops queue> <maxCachedWorkflows> <bundle file>');
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = { codePath };
  const identity = workerIdentity();
  const workers = await Promise.all(
    [turnsQueue, opsQueue].map((taskQueue) =>
      Worker.create({ connection, taskQueue, identity, workflowBundle, activities: bareActivities, ...workerOptions({ maxCachedWorkflows: Number(cache) }) }),
    ),
  );
  const stop = () => workers.forEach((w) => w.shutdown());
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write('bare worker polling\n');
  await Promise.all(workers.map((w) => w.run()));
  await connection.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bare worker failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
