import assert from 'node:assert/strict';
import { type Candidate, fuse } from '../../activities/knowledge/search';

const hit = (id: string, snippet = id): Candidate => ({ id, path: id.split('#')[0]!, location: '', snippet });

/** Reciprocal rank fusion of knowledge.search (docs/knowledge.md: Search). */
describe('knowledge search: reciprocal rank fusion', () => {
  it('a chunk both lists rank second beats those only one list ranks first; ties go by path', () => {
    const words = [hit('x.md#0'), hit('b.md#0')];
    const meaning = [hit('d.md#0'), hit('b.md#0')];
    assert.deepEqual(
      fuse([words, meaning], 3).map((h) => h.path),
      ['b.md', 'd.md', 'x.md'],
    );
  });

  it('keeps the first list\'s version of a chunk (the highlighted snippet), and cuts at the limit', () => {
    const fused = fuse([[hit('a.md#3', '**refund** within 14 days')], [hit('a.md#3', 'refund within 14 days'), hit('z.md#0')]], 1);
    assert.deepEqual(fused, [{ path: 'a.md', location: '', snippet: '**refund** within 14 days' }]);
  });

  it('a meaning-only hit still ranks when full text finds nothing', () => {
    assert.deepEqual(
      fuse([[], [], [hit('refunds.md#0'), hit('office.md#0')]], 5).map((h) => h.path),
      ['refunds.md', 'office.md'],
    );
  });
});
