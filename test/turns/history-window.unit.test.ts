import assert from 'node:assert/strict';
import { historyWindow } from '../../activities/history-window';
import type { MessageRow } from '../../db/repositories/conversations';

const row = (seq: number, role: 'user' | 'assistant', content: string): MessageRow => ({ seq, turn_id: null, role, content, attachments: null, at: new Date(0) });

describe('Bounded history: the window of earlier messages', () => {
  const rows = [row(1, 'user', 'a'.repeat(100)), row(2, 'assistant', 'b'.repeat(100)), row(3, 'user', 'c'.repeat(100)), row(4, 'assistant', 'd'.repeat(100)), row(5, 'user', 'now')];

  it('keeps the newest rows that fit, starting at a user message, and counts the rest', () => {
    const w = historyWindow(rows, 10, 250);
    // 'now' + d + c fit (203); b would exceed 250.
    assert.deepEqual(w.rows.map((r) => r.seq), [3, 4, 5]);
    assert.equal(w.dropped, 7, 'of the 10 the conversation has');
  });

  it('never opens on an assistant message', () => {
    // 'now' + d + c + b = 303 fit 320, but b is an assistant reply: the window starts at c.
    assert.deepEqual(historyWindow(rows, 5, 320).rows.map((r) => r.seq), [3, 4, 5]);
  });

  it("always keeps this turn's message, however small the budget", () => {
    assert.deepEqual(historyWindow(rows, 5, 0).rows.map((r) => r.seq), [5]);
    assert.deepEqual(historyWindow(rows, 5, 10_000).rows.map((r) => r.seq), [1, 2, 3, 4, 5]);
    assert.equal(historyWindow(rows, 5, 10_000).dropped, 0);
  });
});
