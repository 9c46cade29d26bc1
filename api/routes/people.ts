import { mailerFromConfig } from '../../infra/mailer';
import { MembersService } from '../../services/members';
import { OneTimeLinks } from '../../services/one-time-links';
import { PasswordSignIn, type PeopleDeps } from '../../services/password-sign-in';
import type { ApiDeps } from '../context';
import type { ApiRouter } from '../routing';
import { memberRoutes } from './members';
import { sessionRoutes } from './session';
import { signInRoutes } from './sign-in';

/**
 * Members, password and link sign-in, and the caller's session (issue 50, items 1–3), wired in
 * one place. Mail goes out through `SMTP_URL` when it is set (infra/mailer.ts).
 */
export function peopleRoutes(r: ApiRouter, deps: Pick<ApiDeps, 'db' | 'repos' | 'config' | 'logger'>): void {
  const people: PeopleDeps = { db: deps.db, repos: deps.repos, audit: deps.repos.audit, config: deps.config, mailer: mailerFromConfig(deps.config), logger: deps.logger };
  const password = new PasswordSignIn(people);
  memberRoutes(r, new MembersService(people));
  signInRoutes(r, { password, links: new OneTimeLinks(people, password), baseURL: deps.config.baseURL });
  sessionRoutes(r, { repos: deps.repos, audit: deps.repos.audit, password, baseURL: deps.config.baseURL });
}
