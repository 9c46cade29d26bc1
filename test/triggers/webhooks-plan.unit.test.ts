import assert from 'node:assert/strict';
import type { Trigger } from '../../domain/trigger';
import { planWebhooks } from '../../domain/webhooks';

const hook = (message: string, url?: string): Extract<Trigger, { kind: 'webhook' }> => ({ kind: 'webhook', message, ...(url ? { url } : {}) });
const weekly: Trigger = { kind: 'schedule', cron: '0 9 * * 1', message: 'weekly' };

/** Which webhook (and so which inbound URL) each webhook trigger of a new version keeps. */
describe('webhook identity across publishes (planWebhooks)', () => {
  const standing = [
    { id: 'whk_a', trigger: hook('A') },
    { id: 'whk_b', trigger: hook('B', 'https://example.com/b') },
  ];

  it('an unchanged list keeps every webhook where it is', () => {
    assert.deepEqual(planWebhooks(standing, [hook('A'), hook('B', 'https://example.com/b')]), {
      keep: [{ id: 'whk_a', index: 0 }, { id: 'whk_b', index: 1 }],
      create: [],
      remove: [],
    });
  });

  it('a trigger identical to one before keeps its webhook wherever it moved; one removed before it goes', () => {
    assert.deepEqual(planWebhooks(standing, [weekly, hook('B', 'https://example.com/b')]), { keep: [{ id: 'whk_b', index: 1 }], create: [], remove: ['whk_a'] });
    assert.deepEqual(planWebhooks(standing, [hook('B', 'https://example.com/b'), hook('A')]).keep, [{ id: 'whk_b', index: 0 }, { id: 'whk_a', index: 1 }]);
  });

  it('a trigger edited in place keeps its webhook; one more gets a new one; none left removes all', () => {
    assert.deepEqual(planWebhooks(standing, [hook('A'), hook('B, edited'), hook('C')]), {
      keep: [{ id: 'whk_a', index: 0 }, { id: 'whk_b', index: 1 }],
      create: [2],
      remove: [],
    });
    assert.deepEqual(planWebhooks(standing, [weekly]), { keep: [], create: [], remove: ['whk_a', 'whk_b'] });
    assert.deepEqual(planWebhooks([], [hook('A'), weekly, hook('A')]), { keep: [], create: [0, 2], remove: [] });
  });
});
