/**
 * What the API, the domain workflow and its activities share (pure: the workflow imports it).
 * The domain's record and name rules are in domain/custom-domains.ts.
 */

/** The workflow that provisions and renews a domain: one per claim (workspaces may claim the same name). */
export const domainWorkflowId = (domainId: string) => `domain:${domainId}`;

/**
 * A DNS check of a claim: `unproven` (its records are not there), `held` (proved: the claim holds
 * the name), `taken` (proved, but another claim holds the name), `gone` (the claim was removed).
 */
export type ClaimOutcome = 'unproven' | 'held' | 'taken' | 'gone';

/** The TXT record whose value proves a claim where a CNAME cannot be (apex names behind ALIAS/ANAME). */
export const verificationRecordName = (domain: string) => `_hosted-agents.${domain}`;

/** The input of `domainWorkflow`; `phase` is `renew` after the first certificate (continue-as-new). */
export interface DomainRunInput {
  /** The row's id (`dom_…`): a run never touches a row of the same name added again after a removal. */
  domainId: string;
  domain: string;
  dnsDeadlineSeconds: number;
  phase?: 'provision' | 'renew';
}

/** The certificate an issuance stored, as ms since the epoch. */
export interface IssuedCertificate {
  notBefore: number;
  notAfter: number;
  serial: string;
}

/** When to renew: at two-thirds of the certificate's lifetime (Let's Encrypt's advice for 90-day certificates: day 60). */
export function renewAt(cert: Pick<IssuedCertificate, 'notBefore' | 'notAfter'>): number {
  return cert.notBefore + Math.floor(((cert.notAfter - cert.notBefore) * 2) / 3);
}

/** The failure type of a step whose domain was removed meanwhile: the run ends quietly. */
export const DOMAIN_GONE = 'domain_gone';
