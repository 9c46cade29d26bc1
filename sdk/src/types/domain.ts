/**
 * Custom domains of deployed agents (`ws.domains`). The server's schema is in
 * `domain/custom-domains.ts`.
 */

/**
 * Where a custom domain stands: `pending_dns` (waiting for its DNS proof: the CNAME or the TXT record), `issuing` (the certificate
 * is being obtained), `active` (served over HTTPS), `renewing` (still served; a new certificate is
 * being obtained, `failure` names a failed attempt), `failed` (`failure` says why).
 */
export type DomainStatus = 'pending_dns' | 'issuing' | 'active' | 'renewing' | 'failed';

/** A custom domain of an agent, as `ws.domains.add`, `list` and `get` answer. */
export interface CustomDomain {
  /** The host name in ASCII, lower case (a non-ASCII name in its `xn--` form). */
  domain: string;
  /** The agent served on it (prefix `agt_`). */
  agentId: string;
  status: DomainStatus;
  /** What the domain must be a CNAME of: the agent's production host, e.g. `support.agents.example.com`. */
  target: string;
  /**
   * Where a CNAME cannot be (an apex name behind ALIAS/ANAME): a TXT record `name`
   * (`_hosted-agents.<domain>`) whose value is `value`, this claim's own token, proves it instead.
   */
  verification: { type: 'TXT'; name: string; value: string };
  /** Why the domain failed, or why the last renewal attempt failed; null otherwise. */
  failure: string | null;
  /** When the certificate in use expires (it is renewed well before); null before the first one. */
  certificateExpiresAt: string | null;
  createdAt: string;
}
