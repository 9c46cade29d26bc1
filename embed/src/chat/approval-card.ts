import type { TurnEvent } from '../../../sdk/src';

type ApprovalEvent = Extract<TurnEvent, { type: 'approval' }>;

/** What the page does when the visitor decides: resolves to the status that stands, or rejects with what to show. */
export type Decide = (approvalId: string, decision: 'approve' | 'deny') => Promise<ApprovalEvent['status'] | 'cancelled'>;

type Outcome = Exclude<ApprovalEvent['status'], 'pending'> | 'cancelled';

/** The status line's words for an outcome, announced by its live region. */
const OUTCOME: Record<Outcome, string> = {
  approved: 'Approved: the action went ahead.',
  denied: 'Denied: the action was not run.',
  expired: 'No decision in time: the action was not run.',
  cancelled: 'The reply ended before a decision.',
};

/** The card's heading once decided: a settled card stays as a record under the reply, so it must not still say "waiting". */
const SETTLED_TITLE: Record<Outcome, string> = {
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Not decided',
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An argument's value as plain text: strings as they are, anything else as JSON. */
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A tool call waiting for a decision, inside the reply that made it: the tool and its (masked)
 * arguments, as text only; Approve and Deny buttons when the agent lets the visitor decide
 * (`approver: visitor`), otherwise a line saying the team decides. A group with its own label,
 * and a polite live status line that announces the outcome. Once decided it stays, under the
 * reply, as a record of what happened: heading "Approved: <tool>" (or Denied, Expired…), no buttons.
 */
export class ApprovalCard {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly status = el('p', 'ha-approval-status');
  private readonly buttons = el('div', 'ha-approval-actions');

  constructor(
    private readonly event: ApprovalEvent,
    private readonly decide: Decide,
  ) {
    this.root = el('div', 'ha-approval');
    this.root.setAttribute('role', 'group');
    this.title = el('p', 'ha-approval-title', `Action waiting for approval: ${event.tool}`);
    this.title.id = `ha-approval-${event.approvalId}`;
    this.root.setAttribute('aria-labelledby', this.title.id);
    this.root.setAttribute('data-approval-id', event.approvalId);
    const args = el('dl', 'ha-approval-args');
    for (const [name, value] of Object.entries(event.arguments)) args.append(el('dt', '', name), el('dd', '', shown(value)));
    this.status.setAttribute('role', 'status');
    this.root.append(this.title, args, this.status);
    if (event.approver === 'visitor') {
      this.buttons.append(this.button('Approve', 'approve'), this.button('Deny', 'deny'));
      this.root.append(this.buttons);
    } else {
      this.status.textContent = 'Waiting for the team to approve it.';
    }
  }

  /** The turn went on with an outcome (from the stream): show it, in the heading too, and no more buttons. */
  settle(status: ApprovalEvent['status'] | 'cancelled', note?: string): void {
    if (status === 'pending') return;
    this.buttons.remove();
    this.title.textContent = `${SETTLED_TITLE[status]}: ${this.event.tool}`;
    this.status.textContent = note ? `${OUTCOME[status]} Note: ${note}` : OUTCOME[status];
    this.root.classList.add(`ha-approval-${status}`);
  }

  private button(label: string, decision: 'approve' | 'deny'): HTMLButtonElement {
    const button = el('button', `ha-approval-${decision}`, label);
    button.type = 'button';
    button.addEventListener('click', () => void this.choose(decision));
    return button;
  }

  private async choose(decision: 'approve' | 'deny'): Promise<void> {
    const buttons = [...this.buttons.querySelectorAll('button')];
    buttons.forEach((b) => (b.disabled = true));
    this.status.textContent = decision === 'approve' ? 'Approving…' : 'Denying…';
    try {
      this.settle(await this.decide(this.event.approvalId, decision));
    } catch (error) {
      buttons.forEach((b) => (b.disabled = false));
      this.status.textContent = error instanceof Error ? error.message : 'The decision could not be sent; try again.';
    }
  }
}
