import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Service } from '../../sdk/src';
import { SHOTS, shootAtWidths } from './screenshots';
import { useBrowserPage } from '../support/browser-page';
import { useIsolatedStack } from '../support/isolated-stack';
import { refundTool, startRefunds } from '../support/refunds';
import { waitFor } from '../support/wait';

/**
 * Tool calls a person approves, on the hosted chat page in Chromium (docs/approvals.md): the
 * visitor sees the pending action (tool and arguments) and, only when the agent's `approvals` is
 * `visitor`, Approve and Deny buttons that decide it; otherwise no buttons, and the public route
 * refuses the visitor. Once decided, the action stays under the reply as a record that says how
 * it settled, and the reply lists the tools it ran. The offline model calls the tool from a `/tool`
 * line. Screenshots go to test-artifacts/screenshots/approval-*.png.
 */

const ASK = '/tool refund {"orderId":"A1","amount":20}';

describe('approving a tool call on the hosted chat page (Chromium)', function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ worker: 'inline', env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8', PUBLIC_CHAT_PER_VISITOR: '1000', PUBLIC_CHAT_PER_ADDRESS: '10000' } });
  const { api } = stack;
  const chromium = useBrowserPage({ api, credits: 1000, viewport: { width: 720, height: 800 } });
  let refunds: Awaited<ReturnType<typeof startRefunds>>;
  let ws: Service;
  let page: Page;

  before(async () => {
    refunds = await startRefunds();
    ({ ws } = chromium.workspace());
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await refunds?.close();
  });
  beforeEach(() => {
    ({ page } = chromium.now());
  });

  /** A production agent whose refund tool needs approval, decided as `approvals` says. */
  async function deployRefundAgent(approvals?: 'visitor' | 'workspace'): Promise<string> {
    const agent = await ws.agents.create({
      name: 'Refund Desk',
      role: 'freelancer',
      httpTools: [refundTool(refunds.url)],
      ...(approvals ? { approvals } : {}),
    });
    await ws.agents.deployToProd(agent.versionId);
    return agent.id;
  }

  /**
   * Opens the hosted page, asks for the refund, and resolves to the pending action's card (found
   * by its approval id from then on: its label changes once decided).
   */
  async function askOnPage(agentId: string) {
    await page.goto(`${api.baseURL}/embed/${agentId}`);
    await page.getByRole('textbox').fill(ASK);
    await page.keyboard.press('Enter');
    const pending = page.getByRole('group', { name: /Action waiting for approval: refund/ });
    await pending.waitFor({ timeout: 30_000 });
    const approvalId = (await pending.getAttribute('data-approval-id')) ?? '';
    const visitorId = await page.evaluate((key) => localStorage.getItem(key), `ha:uid:${agentId}`);
    return { card: page.locator(`[data-approval-id="${approvalId}"]`), approvalId, visitorId: visitorId ?? '' };
  }

  /** The finished reply (the last assistant message, no longer busy) and its visible text. */
  async function finishedReply() {
    const reply = page.locator('.ha-msg-assistant[aria-busy="false"]').last();
    await reply.waitFor({ timeout: 30_000 });
    return reply;
  }

  /** The public decision route, as a visitor's page (or anyone with the token) would call it. */
  async function publicDecide(agentId: string, approvalId: string, userId: string) {
    const token = await ws.agents.publicToken(agentId);
    const res = await fetch(`${api.baseURL}/v1/public/approvals/${encodeURIComponent(approvalId)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId, decision: 'approve' }),
    });
    return { status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code };
  }

  it("with approvals: 'visitor' the visitor sees the action and approves it; another visitor cannot", async () => {
    const agentId = await deployRefundAgent('visitor');
    const before = refunds.seen.length;
    const { card, approvalId, visitorId } = await askOnPage(agentId);
    assert.match(await card.innerText(), /orderId\s+A1/);
    assert.match(await card.innerText(), /amount\s+20/);
    await card.screenshot({ path: path.join(SHOTS, 'approval-pending-visitor.png') });
    // Another visitor of the same agent, who typed the id: not theirs, so not found.
    assert.deepEqual(await publicDecide(agentId, approvalId, 'someone-else'), { status: 404, code: 'approval_not_found' });
    assert.equal(refunds.seen.length, before, 'nothing ran before the decision');

    await card.getByRole('button', { name: 'Approve' }).click();
    // Under the reply it produced, the card is a record of what happened, not a call to act.
    await page.getByRole('group', { name: 'Approved: refund' }).waitFor({ timeout: 10_000 });
    await card.getByRole('status').filter({ hasText: 'Approved: the action went ahead.' }).waitFor();
    const reply = await finishedReply();
    assert.equal(await card.getByRole('button').count(), 0, 'no buttons once decided');
    assert.equal(await page.getByText(/waiting for approval/).count(), 0, 'nothing still says it waits');
    assert.match(await reply.innerText(), /Tool results: refund/);
    // The activity line is gone with the finished reply; a compact record of the tool call stays.
    const record = reply.locator('.ha-tools');
    assert.equal(await record.innerText(), 'Used refund');
    assert.equal(await record.isVisible(), true);
    await shootAtWidths(page, 'approval-approved');
    await waitFor('the refund', () => refunds.seen.length, (n) => n === before + 1);
    assert.equal((await api.db('tool_approvals').where({ id: approvalId }).first()).status, 'approved');
    assert.ok(visitorId.length > 0);
  });

  it("with approvals left to the workspace the visitor sees the action wait, with no buttons, and the public route refuses", async () => {
    const agentId = await deployRefundAgent();
    const { card, approvalId, visitorId } = await askOnPage(agentId);
    assert.match(await card.innerText(), /Waiting for the team to approve it/);
    assert.equal(await card.getByRole('button').count(), 0);
    await card.screenshot({ path: path.join(SHOTS, 'approval-pending-workspace.png') });
    // The visitor's own approval, their own id: still not theirs to decide.
    assert.deepEqual(await publicDecide(agentId, approvalId, visitorId), { status: 404, code: 'approval_not_found' });
    assert.equal((await api.db('tool_approvals').where({ id: approvalId }).first()).status, 'pending');

    // The team denies it with the API key; the page shows the outcome from the stream.
    await ws.approval(approvalId).deny('refunds go through the billing team');
    await card.getByRole('status').filter({ hasText: /Denied: the action was not run\. Note: refunds go through the billing team/ }).waitFor();
    const reply = await finishedReply();
    assert.equal(await page.getByRole('group', { name: 'Denied: refund' }).count(), 1, 'the heading says it was denied');
    assert.equal(await page.getByText(/waiting for approval|Waiting for the team/).count(), 0, 'nothing still says it waits');
    assert.equal(await reply.locator('.ha-tools').count(), 0, 'a denied call did not run: no "Used refund"');
    await shootAtWidths(page, 'approval-denied');
  });

  it('a tool that needs no approval: once the reply is done, "Used refund" stays under it', async () => {
    const agent = await ws.agents.create({ name: 'Refund Desk', role: 'freelancer', httpTools: [{ ...refundTool(refunds.url), approval: 'none' }] });
    await ws.agents.deployToProd(agent.versionId);
    await page.goto(`${api.baseURL}/embed/${agent.id}`);
    await page.getByRole('textbox').fill(ASK);
    await page.keyboard.press('Enter');
    const reply = await finishedReply();
    assert.match(await reply.innerText(), /Tool results: refund/);
    assert.equal(await reply.locator('.ha-activity').count(), 0, 'the line shown while it ran is gone');
    assert.equal(await reply.locator('.ha-tools').innerText(), 'Used refund');
    assert.equal(await reply.locator('.ha-tools').isVisible(), true);
    await shootAtWidths(page, 'reply-used-tool');
  });
});
