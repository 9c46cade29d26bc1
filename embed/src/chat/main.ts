/**
 * The hosted chat page: history, sending, a streamed reply that survives dropped connections,
 * and a visitor switch when the embedding page identifies someone else (hash change).
 */
import type { HostedPageConfig } from '../../page-template';
import { applyAccent } from './accent';
import { ApiError, PublicApi } from './api';
import { ApprovalCard, type Decide } from './approval-card';
import type { Step } from '../../../sdk/src';
import { activityLine, ReplyText } from './events';
import { embedderOrigin, readConfig, visitorFrom, type Visitor } from './identity';
import { TurnFollower } from './turn';
import { ChatView, type ReplyView } from './view';

/** The message v1.js listens for (from this frame, with this page's origin) to close its panel. */
const CLOSE_MESSAGE = { type: 'hosted-agents:close' };

function start(): void {
  const log = document.getElementById('ha-log');
  const form = document.getElementById('ha-form') as HTMLFormElement | null;
  const input = document.getElementById('ha-input') as HTMLTextAreaElement | null;
  const sendButton = document.getElementById('ha-send') as HTMLButtonElement | null;
  if (!log || !form || !input || !sendButton) return;
  const config = readConfig(document);
  const view = new ChatView(log, config?.name ?? 'Agent');
  if (!config) return view.notice('This chat could not start: its configuration is missing.');
  new ChatPage(config, view, form, input, sendButton).start();
}

class ChatPage {
  private readonly api: PublicApi;
  private visitor: Visitor;
  /** Aborted when the visitor changes: everything in flight for the old one stops quietly. */
  private session = new AbortController();
  private busy = false;

  constructor(
    private readonly config: HostedPageConfig,
    private readonly view: ChatView,
    private readonly form: HTMLFormElement,
    private readonly input: HTMLTextAreaElement,
    private readonly sendButton: HTMLButtonElement,
  ) {
    this.api = new PublicApi(config);
    this.visitor = visitorFrom(location.hash, config.agentId);
  }

  start(): void {
    if (embedderOrigin(location.hash)) document.documentElement.classList.add('ha-embedded');
    applyAccent(document, location.hash);
    if (this.config.mode === 'test') {
      // A test deployment: say so, so nobody mistakes it for the live agent.
      const badge = document.createElement('span');
      badge.className = 'ha-badge';
      badge.textContent = 'Test version';
      document.getElementById('ha-title')?.append(' ', badge);
    }
    this.openComposer();
    if (embedderOrigin(location.hash)) {
      // In the embed's panel, focus given to the frame lands on <body>: hand it to the composer.
      const toComposer = () => document.activeElement === document.body && this.input.focus();
      window.addEventListener('focus', toComposer);
      if (document.hasFocus()) toComposer();
    }
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      // isComposing: Enter also confirms an IME candidate (Chinese, Japanese…); that must not send.
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => this.fitInput());
    window.addEventListener('hashchange', () => this.onHashChange());
    document.addEventListener('keydown', (event) => {
      // Inside the embed's iframe the host page never sees our keys: ask it to close the panel.
      const origin = embedderOrigin(location.hash);
      if (event.key === 'Escape' && origin) window.parent.postMessage(CLOSE_MESSAGE, origin);
    });
    void this.loadHistory();
  }

  private submit(): void {
    const content = this.input.value.trim();
    if (!content || this.busy) return;
    this.input.value = '';
    this.fitInput();
    this.view.dropRetries();
    this.view.user(content);
    void this.send(content);
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    // aria-disabled rather than disabled: the button keeps focus and stays discoverable.
    this.sendButton.setAttribute('aria-disabled', String(busy));
  }

  /** Lets the visitor write (again, once a sign-in went through). */
  private openComposer(): void {
    this.input.disabled = this.sendButton.disabled = false;
    this.input.placeholder = `Message ${this.config.name}…`;
  }

  /**
   * The service refused who the visitor is and no retry can change that: no composer to write
   * into, and it says why (the refusal itself is in the log, once).
   */
  private closeComposer(reason: string): void {
    this.input.disabled = this.sendButton.disabled = true;
    this.input.placeholder = reason;
  }

  /** Ends `reply` with what went wrong: a Retry only where one may help. */
  private failed(reply: ReplyView, error: unknown, resend: (() => void) | null): void {
    const signIn = signInNeeded(error);
    reply.fail(describe(error), signIn ? undefined : retryFor(error, resend));
    if (signIn) this.closeComposer(signIn);
  }

  /** Grows the textarea with its content, up to the cap set in CSS. */
  private fitInput(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${this.input.scrollHeight}px`;
  }

  private onHashChange(): void {
    const next = visitorFrom(location.hash, this.config.agentId);
    const switched = next.id !== this.visitor.id || next.token !== this.visitor.token;
    this.visitor = next; // the same id may bring a new name or email
    if (!switched) return;
    this.session.abort();
    this.session = new AbortController();
    void this.loadHistory();
  }

  private async loadHistory(): Promise<void> {
    const { signal } = this.session;
    this.view.clear();
    if (this.config.greeting) this.view.assistant(this.config.greeting, ' ha-greeting');
    this.setBusy(true);
    try {
      const history = await this.api.history(this.visitor, signal);
      this.openComposer();
      for (const message of history.data) {
        if (message.role === 'user') this.view.user(message.content);
        else this.view.assistant(message.content);
      }
      // No greeting and nothing said yet: a prompt rather than a blank panel.
      if (!this.config.greeting && history.data.length === 0 && !history.runningTurnId) this.view.empty();
      this.view.scrollToEnd();
      // A reply still being written (the visitor reloaded mid-turn): follow it from its start.
      if (history.runningTurnId) await this.follow(history.runningTurnId, null, this.view.reply(), null);
    } catch (error) {
      if (signal.aborted) return;
      const signIn = signInNeeded(error);
      this.view.notice(describe(error), signIn ? undefined : { onRetry: () => void this.loadHistory() });
      if (signIn) this.closeComposer(signIn);
    } finally {
      if (!signal.aborted) this.setBusy(false);
    }
  }

  private async send(content: string): Promise<void> {
    const { signal } = this.session;
    const reply = this.view.reply();
    const resend = (): void => {
      reply.remove();
      void this.send(content);
    };
    this.setBusy(true);
    try {
      const response = await this.api.send(content, this.visitor, signal);
      await this.follow(response.headers.get('X-Turn-Id'), response, reply, resend);
    } catch (error) {
      if (signal.aborted) return;
      this.failed(reply, error, resend);
    } finally {
      if (!signal.aborted) this.setBusy(false);
    }
  }

  /**
   * Streams a turn into `reply` until `done` or `error`. A connection that cannot be recovered
   * ends in "Retry", which resumes the same turn (it is still running server-side) rather than
   * sending the message again; `resend` is for replies that failed for real.
   */
  private async follow(turnId: string | null, first: Response | null, reply: ReplyView, resend: (() => void) | null): Promise<void> {
    const { signal } = this.session;
    const visitor = this.visitor;
    const text = new ReplyText();
    let steps: Step[] | null = null;
    let tool: string | null = null;
    /** The tools this reply ran, kept as a record under it once it ends. */
    const used = new Set<string>();
    const cards = new Map<string, ApprovalCard>();
    const decide: Decide = async (approvalId, decision) => {
      try {
        return (await this.api.decide(approvalId, visitor, decision, signal)) as 'approved' | 'denied';
      } catch (error) {
        // Decided before (by the team, another tab, the timeout): the stream brings the outcome.
        if (error instanceof ApiError && error.code === 'approval_decided') return 'pending';
        throw new Error(describe(error));
      }
    };
    const follower = new TurnFollower(turnId, {
      signal,
      resume: (id, lastEventId, s) => this.api.resume(id, visitor, lastEventId, s),
      onReconnecting: () => reply.setActivity('Reconnecting…'),
      onEvent: (event) => {
        if (text.apply(event)) reply.setText(text.text);
        if (event.type === 'progress') steps = event.steps;
        if (event.type === 'tool') tool = event.state === 'start' ? event.name : null;
        if (tool) used.add(tool);
        if (event.type === 'done') {
          reply.recordTools([...used]);
          return reply.finish(event.reply);
        }
        if (event.type === 'error') {
          for (const card of cards.values()) card.settle('cancelled');
          reply.recordTools([...used]);
          return reply.fail(event.message, resend ? { onRetry: resend } : undefined);
        }
        if (event.type === 'approval') {
          const card = cards.get(event.approvalId);
          if (card) card.settle(event.status, event.note);
          else if (event.status === 'pending') {
            const added = new ApprovalCard(event, decide);
            cards.set(event.approvalId, added);
            reply.attach(added.root);
          }
          return reply.setActivity(event.status === 'pending' ? 'Waiting for approval…' : activityLine(steps, tool));
        }
        reply.setActivity(activityLine(steps, tool));
      },
    });
    const attempt = async (response: Response | null): Promise<void> => {
      this.setBusy(true);
      try {
        if ((await follower.follow(response)) === 'final') return;
        const resume = (): void => {
          reply.busy();
          void attempt(null);
        };
        const retry = follower.turnId ? resume : resend;
        reply.fail('The connection was lost before the reply finished.', retry ? { onRetry: retry } : undefined);
      } catch (error) {
        if (signal.aborted) return;
        this.failed(reply, error, resend);
      } finally {
        if (!signal.aborted) this.setBusy(false);
      }
    };
    await attempt(first);
  }
}

/** What the visitor reads for a failed request. */
function describe(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return `Too many messages — try again in ${Math.max(1, Math.ceil(error.retryAfter ?? 10))} s`;
    if (error.code === 'invalid_visitor_token') return 'This chat could not confirm who you are (your sign-in may have expired). Reload the page, or sign in again.';
    if (error.code === 'visitor_token_required') return 'This chat is only for signed-in visitors: sign in on the website, then open the chat again.';
    return error.message;
  }
  return 'Could not reach the chat service. Check your connection and try again.';
}

/**
 * For a refusal of who the visitor is, what the closed composer says (the visitor has to sign in
 * on the site that embeds the chat, which then signs a token for them); null for anything else.
 */
function signInNeeded(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'visitor_token_required') return 'Sign in on the website to chat';
  if (error.code === 'invalid_visitor_token') return 'Sign in again on the website to chat';
  return null;
}

function retryFor(error: unknown, resend: (() => void) | null): { onRetry(): void; waitSeconds?: number } | undefined {
  if (!resend) return undefined;
  if (error instanceof ApiError && error.status === 429) return { onRetry: resend, waitSeconds: Math.ceil(error.retryAfter ?? 10) };
  return { onRetry: resend };
}

start();
