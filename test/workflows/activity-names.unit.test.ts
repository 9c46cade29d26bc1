import assert from 'node:assert/strict';
import { mergeActivities } from '../../activities/merge';

/**
 * Two activity factories returning the same name would register one activity in place of the
 * other (issue 52, item 6): activities/index.ts merges its groups with mergeActivities, which
 * refuses a repeated name when compiling and, should a type be widened, when the worker starts.
 */
describe('activity names are unique across factories', () => {
  const a = { startTurn: async () => 'a' };
  const b = { runTool: async () => 'b' };

  it('merges groups with distinct names into one object with every activity', async () => {
    const merged = mergeActivities(a, b);
    assert.equal(await merged.startTurn(), 'a');
    assert.equal(await merged.runTool(), 'b');
  });

  it('refuses a name two groups define, naming it', () => {
    const again = { startTurn: async () => 'again' };
    // @ts-expect-error a repeated name is a compile error (this line proves it: tsc fails if it compiles)
    assert.throws(() => mergeActivities(a, b, again), /two activity factories define the activity startTurn/);
    const widened: object = again;
    assert.throws(() => mergeActivities(a, widened), /startTurn/);
  });
});
