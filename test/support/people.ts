import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { RunningApi } from './api';
import { call, type JsonResponse } from '../../harness/http';
import type { Role } from '../../domain/roles';
import { hashPassword } from '../../services/passwords';
import { waitFor } from './wait';

/** A signed-in browser, as far as the API can tell: its cookie and the session's CSRF token. */
export interface Browser {
  cookie: string;
  csrfToken: string;
}

/** The `ha_session=…` pair a response set, or undefined. */
export function sessionCookieOf(res: { headers: Headers }): string | undefined {
  const cookies = res.headers.getSetCookie();
  const pair = cookies.map((c) => c.split(';')[0]!).find((p) => p.startsWith('ha_session='));
  return pair && pair !== 'ha_session=' ? pair : undefined;
}

/** A call made by a signed-in browser: the cookie, and the CSRF token unless `csrf` is false or another value. */
export function asBrowser<T = unknown>(
  api: Pick<RunningApi, 'baseURL'>,
  browser: Browser,
  method: string,
  path: string,
  opts: { body?: unknown; csrf?: string | false; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { cookie: browser.cookie, ...opts.headers };
  const csrf = opts.csrf === undefined ? browser.csrfToken : opts.csrf;
  if (csrf !== false) headers['x-csrf-token'] = csrf;
  return call<T>(api.baseURL, method, path, { body: opts.body, headers });
}

/** Signs in by password; throws unless it worked. */
export async function signIn(api: Pick<RunningApi, 'baseURL'>, email: string, password: string, headers: Record<string, string> = {}): Promise<Browser> {
  const res = await call<{ csrfToken: string }>(api.baseURL, 'POST', '/v1/auth/password', { body: { email, password }, headers });
  const cookie = sessionCookieOf(res);
  if (res.status !== 200 || !cookie) throw new Error(`sign-in of ${email}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie, csrfToken: res.body.csrfToken };
}

let counter = 0;

/** A member with a password, straight into the database (what an accepted invite leaves behind). */
export async function addMember(
  api: Pick<RunningApi, 'repos'>,
  workspaceId: string,
  role: Role,
  password = 'correct horse battery staple',
): Promise<{ memberId: string; accountId: string; email: string; password: string }> {
  const email = `${role}-${Date.now().toString(36)}-${++counter}@people.test`;
  const account = await api.repos.members.findOrCreateAccount({ email, name: `${role} person` });
  await api.repos.members.setPasswordHash({ accountId: account.id, passwordHash: await hashPassword(password) });
  const member = await api.repos.members.add({ workspaceId, accountId: account.id, role });
  return { memberId: member!.id, accountId: account.id, email, password };
}

/** The path (`/v1/auth/links/hl_…`) of a link URL, to call it on the test API whatever base URL the config names. */
export const linkPath = (url: string): string => new URL(url).pathname;

/** A received message: its recipients and its text, quoted-printable decoded. */
export interface ReceivedMail {
  to: string[];
  text: string;
}

/** A real SMTP server (the `smtp-server` package) on a free port, keeping what it receives. */
export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** The first message to `to` (waits up to 10 s). */
  mailTo(to: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')) });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async mailTo(to) {
      const found = await waitFor(`a mail to ${to}`, () => received.find((m) => m.to.includes(to.toLowerCase())), (m) => m !== undefined, 10_000);
      return found!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The one-time link in a mail's text. */
export function linkInMail(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s]+\/v1\/auth\/links\/hl_[A-Za-z0-9_-]{43}/.exec(mail.text);
  if (!match) throw new Error(`no link in the mail: ${mail.text.slice(0, 500)}`);
  return match[0];
}

/** Undoes quoted-printable soft line breaks and escapes (how nodemailer sends long text lines). */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
