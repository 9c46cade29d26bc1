import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { z } from 'zod';

/**
 * Custom domains: a customer's host name (e.g. `chat.shop.com`), mapped by CNAME to an agent's
 * production host, served over HTTPS with a certificate we obtain by ACME and renew. The schemas
 * are the API's contract; the functions are pure rules shared by API, activities and workflow.
 */

/**
 * What a user sees: `pending_dns` (waiting for the DNS proof: the CNAME, or the TXT record), `issuing` (ACME order in progress),
 * `active` (served over HTTPS), `renewing` (still served; a new certificate is being obtained,
 * `failure` names the last failed attempt), `failed` (`failure` says why; add it again to retry).
 */
const domainStatuses = ['pending_dns', 'issuing', 'active', 'renewing', 'failed'] as const;
export type DomainStatus = (typeof domainStatuses)[number];

/** Statuses in which a certificate is in place and the domain is served. */
export const servingStatuses: readonly DomainStatus[] = ['active', 'renewing'];

const agentId = z.string().regex(/^agt_[0-9a-z]{1,60}$/, 'an agent id (agt_…)');

export const addDomainBodySchema = z
  .object({ domain: z.string().min(1, 'must not be empty').max(253, 'at most 253 characters'), agentId })
  .strict()
  .meta({ id: 'AddDomainRequest' });

export const domainParamSchema = z.object({ domain: z.string().min(1).max(253) }).strict();

export const customDomainSchema = z
  .object({
    domain: z.string().meta({ description: 'The host name in ASCII (IDNA: `xn--…` for non-ASCII names), lower case.' }),
    agentId: z.string(),
    status: z.enum(domainStatuses),
    target: z.string().meta({ description: 'What the domain must be a CNAME of: the agent\'s production host.' }),
    verification: z
      .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
      .strict()
      .meta({ description: 'Where a CNAME cannot be (an apex name behind ALIAS/ANAME), this TXT record proves the claim instead: its value is this claim\'s own token.' }),
    failure: z.string().nullable().meta({ description: 'Why the domain failed, or why its last renewal attempt failed; null otherwise.' }),
    certificateExpiresAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .strict()
  .meta({ id: 'CustomDomain', description: 'A custom domain of a deployed agent and the state of its certificate.' });
export type CustomDomain = z.infer<typeof customDomainSchema>;

/**
 * The ASCII form of a host name a user typed, or why it cannot be a custom domain: no IP
 * address, no wildcard, at least two labels, and nothing under the agents domain (those hosts
 * are ours already).
 */
export function normalizeDomain(input: string, agentsDomain: string): { domain: string } | { problem: string } {
  const text = input.trim().replace(/\.$/, '');
  if (text.includes('*')) return { problem: 'a wildcard cannot be a custom domain: name one host, e.g. chat.example.com' };
  if (isIP(text.replace(/^\[|\]$/g, '')) !== 0) return { problem: 'an IP address cannot be a custom domain: use a host name' };
  if (/[/:@?#\s]/.test(text)) return { problem: 'a host name only, without scheme, port or path (e.g. chat.example.com)' };
  const ascii = domainToASCII(text);
  if (ascii === '') return { problem: `"${input}" is not a valid host name` };
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) || ascii.length > 253) {
    return { problem: `"${input}" is not a valid host name (letters, digits and dashes, two labels at least)` };
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return { problem: 'an IP address cannot be a custom domain: use a host name' };
  const ours = agentsDomain.toLowerCase();
  if (ascii === ours || ascii.endsWith(`.${ours}`)) return { problem: `hosts under ${ours} are served already; a custom domain is one of your own` };
  return { domain: ascii };
}

/** The sealing context of a certificate's private key: bound to the domain row. */
export const tlsKeyContext = (domainId: string, domain: string) => JSON.stringify(['tls-key', 'domain', domainId, domain]);
/** The sealing context of an ACME account key: bound to its directory. */
export const acmeAccountKeyContext = (directoryUrl: string) => JSON.stringify(['acme-account-key', 'directory', directoryUrl, 'account']);
