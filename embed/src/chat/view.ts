import { renderMarkdown } from './markdown';

export interface RetryOption {
  onRetry(): void;
  /** Keep the button disabled this many seconds (after a 429). */
  waitSeconds?: number;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The message list (`role="log"`): adds messages and keeps the view at the bottom while the visitor is there. */
export class ChatView {
  constructor(
    private readonly log: HTMLElement,
    private readonly agentName: string,
  ) {}

  clear(): void {
    this.log.replaceChildren();
  }

  /**
   * A conversation with no greeting and no messages yet: a prompt to write the first one, in text
   * (read out by the log's live region). Anything added to the log replaces it.
   */
  empty(): void {
    const root = el('div', 'ha-empty');
    root.setAttribute('data-empty-state', '');
    root.append(el('p', 'ha-empty-title', `Start a conversation with ${this.agentName}`), el('p', '', 'Write your first message below.'));
    this.log.append(root);
  }

  /** The visitor's own words, shown strictly as text. */
  user(text: string): void {
    this.append(this.message('user', 'You', el('div', 'ha-bubble', text)));
  }

  /** A finished assistant message (history, greeting), rendered from sanitised markdown. */
  assistant(markdown: string, extraClass = ''): void {
    const bubble = el('div', 'ha-bubble ha-md');
    bubble.append(renderMarkdown(markdown));
    this.append(this.message(`assistant${extraClass}`, this.agentName, bubble));
  }

  /** A reply being streamed in. */
  reply(): ReplyView {
    const view = new ReplyView(this.message('assistant', this.agentName, el('div', 'ha-bubble ha-md')), (change) => this.keepAtBottom(change));
    this.append(view.root);
    return view;
  }

  /** A problem outside any reply (the history failed to load), with an optional retry. */
  notice(text: string, retry?: RetryOption): void {
    const root = el('div', 'ha-msg ha-msg-notice');
    root.append(errorBlock(text, retry));
    this.append(root);
  }

  /** Retry buttons of earlier failures would resend out of order once the visitor moved on. */
  dropRetries(): void {
    this.log.querySelectorAll('.ha-retry').forEach((button) => button.remove());
  }

  scrollToEnd(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }

  private message(role: string, speaker: string, bubble: HTMLElement): HTMLElement {
    const root = el('div', `ha-msg ha-msg-${role}`);
    root.append(el('span', 'ha-sr-only', `${speaker}: `), bubble);
    return root;
  }

  private append(node: HTMLElement): void {
    this.log.querySelector('[data-empty-state]')?.remove();
    this.keepAtBottom(() => this.log.append(node));
  }

  /** Runs `change`; if the visitor was reading the end of the log, the end stays in view. */
  private keepAtBottom(change: () => void = () => undefined): void {
    const { log } = this;
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 64;
    change();
    if (atEnd) log.scrollTop = log.scrollHeight;
  }
}

/**
 * One streaming reply. While it streams, the message is `aria-busy` so screen readers announce
 * it once, finished, instead of every few tokens. Markdown is re-rendered at most once a frame.
 */
export class ReplyView {
  private readonly bubble: HTMLElement;
  private readonly activity = el('p', 'ha-activity');
  private pending: string | null = null;
  private frame = 0;

  constructor(
    readonly root: HTMLElement,
    private readonly keepAtBottom: (change: () => void) => void,
  ) {
    this.bubble = root.querySelector('.ha-bubble') as HTMLElement;
    this.busy();
  }

  setText(markdown: string): void {
    this.pending = markdown;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** A muted line under the reply ("Searching knowledge…"); null removes it. */
  setActivity(text: string | null): void {
    this.keepAtBottom(() => {
      if (!text) return this.activity.remove();
      this.activity.textContent = text;
      if (!this.activity.isConnected) this.root.append(this.activity);
    });
  }

  /** Adds a block under the reply's text (a tool call waiting for approval), before the activity line. */
  attach(node: HTMLElement): void {
    this.keepAtBottom(() => this.root.insertBefore(node, this.activity.isConnected ? this.activity : null));
  }

  /**
   * The tools the reply ran, as one compact line under it ("Used refund, files.write"): the
   * activity line shown while they ran goes once the reply ends; this record stays.
   */
  recordTools(names: readonly string[]): void {
    if (names.length > 0) this.attach(el('p', 'ha-tools', `Used ${names.join(', ')}`));
  }

  /** Shows the final reply in full and lets assistive technology read it. */
  finish(markdown: string): void {
    this.cancelFrame();
    this.keepAtBottom(() => {
      this.activity.remove();
      if (markdown.trim()) this.bubble.replaceChildren(renderMarkdown(markdown));
      else this.bubble.replaceChildren(el('span', 'ha-muted', 'No reply.'));
      this.root.setAttribute('aria-busy', 'false');
    });
  }

  /** Ends the reply with a plain error and a Retry button; partial text stays visible above it. */
  fail(text: string, retry?: RetryOption): void {
    this.flush();
    this.keepAtBottom(() => {
      this.activity.remove();
      this.root.querySelector('.ha-typing')?.remove();
      this.root.classList.add('ha-msg-failed');
      this.root.append(errorBlock(text, retry));
      this.root.setAttribute('aria-busy', 'false');
    });
  }

  /** Back to streaming after a failure (resuming the same turn). */
  busy(): void {
    this.root.querySelector('.ha-error')?.remove();
    this.root.classList.remove('ha-msg-failed');
    if (!this.bubble.hasChildNodes()) this.bubble.append(typingDots());
    this.root.setAttribute('aria-busy', 'true');
  }

  remove(): void {
    this.cancelFrame();
    this.root.remove();
  }

  private flush(): void {
    this.cancelFrame();
    if (this.pending === null) return;
    const markdown = this.pending;
    this.pending = null;
    this.keepAtBottom(() => this.bubble.replaceChildren(renderMarkdown(markdown)));
  }

  private cancelFrame(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
  }
}

function typingDots(): HTMLElement {
  const dots = el('span', 'ha-typing');
  dots.setAttribute('aria-hidden', 'true');
  dots.append(el('i', ''), el('i', ''), el('i', ''));
  return dots;
}

function errorBlock(text: string, retry?: RetryOption): HTMLElement {
  const block = el('div', 'ha-error');
  block.append(el('p', 'ha-error-text', text));
  if (retry) {
    const button = el('button', 'ha-retry', 'Retry');
    button.type = 'button';
    button.addEventListener('click', () => {
      block.remove();
      retry.onRetry();
    });
    if (retry.waitSeconds) {
      button.disabled = true;
      setTimeout(() => (button.disabled = false), retry.waitSeconds * 1000);
    }
    block.append(button);
  }
  return block;
}
