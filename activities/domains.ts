import { Resolver } from 'node:dns/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CustomDomainsRepository } from '../db/repositories/custom-domains';
import { type DomainStatus, tlsKeyContext } from '../domain/custom-domains';
import { type ClaimOutcome, DOMAIN_GONE, type IssuedCertificate, verificationRecordName } from '../domain/runs/custom-domain';
import type { SecretBox } from '../domain/secret-box';
import type { AcmeCertificate } from './acme';

export interface DomainDeps {
  repos: { customDomains: CustomDomainsRepository };
  box: SecretBox;
  agentsDomain: string;
  /** DNS servers CNAMEs are read from (DNS_RESOLVER); empty: the system's. */
  dnsServers: string[];
  /** Runs one ACME order for a claim's name (activities/acme.ts); undefined when ACME is off. */
  issue: ((claim: { domainId: string; domain: string }) => Promise<AcmeCertificate>) | undefined;
}

/** The domain as a run sees it; null once removed. */
export interface DomainForRun {
  status: DomainStatus;
  /** The agent's production host the CNAME must name; null when the agent has none. */
  target: string | null;
  /** The value the claim's `_hosted-agents.<domain>` TXT record may carry instead. */
  token: string;
  certificate: IssuedCertificate | null;
}

const gone = () => ApplicationFailure.create({ type: DOMAIN_GONE, message: 'the domain was removed', nonRetryable: true });

/** The domain workflow's steps (workflows/domain.ts): reads, the DNS check, status changes, and issuance. */
export function createDomainActivities(deps: DomainDeps) {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (deps.dnsServers.length > 0) resolver.setServers(deps.dnsServers);
  const failed = (err: unknown, none: string) => {
    const code = (err as { code?: string }).code;
    return code === 'ENODATA' || code === 'ENOTFOUND' ? none : `lookup failed (${code ?? String(err)})`;
  };
  const lookupCname = async (name: string): Promise<{ names: string[]; seen: string }> => {
    try {
      const names = (await resolver.resolveCname(name)).map((n) => n.toLowerCase().replace(/\.$/, ''));
      return { names, seen: `CNAME ${names.join(', ')}` };
    } catch (err) {
      return { names: [], seen: failed(err, 'no CNAME record') };
    }
  };
  const lookupTxt = async (name: string): Promise<{ values: string[]; seen: string }> => {
    try {
      const values = (await resolver.resolveTxt(name)).map((chunks) => chunks.join('').trim());
      return { values, seen: `${values.length} TXT record(s) at ${name}` };
    } catch (err) {
      return { values: [], seen: failed(err, `no TXT record at ${name}`) };
    }
  };

  return {
    async domainForRun({ domainId }: { domainId: string }): Promise<DomainForRun | null> {
      const row = await deps.repos.customDomains.forRun({ id: domainId });
      if (!row) return null;
      const certificate =
        row.not_before && row.not_after && row.cert_serial
          ? { notBefore: row.not_before.getTime(), notAfter: row.not_after.getTime(), serial: row.cert_serial }
          : null;
      return { status: row.status, target: row.slug ? `${row.slug}.${deps.agentsDomain}` : null, token: row.verification_token, certificate };
    },

    /**
     * Whether the claim's DNS proves it — `domain` a CNAME of its agent's host `target`, or a TXT
     * record `_hosted-agents.<domain>` carrying its `token` — and if so, whether it now holds the
     * name (`taken`: another claim does). `seen` is what the resolver answered, for the failure text.
     */
    async verifyDomainClaim(input: { domainId: string; domain: string; target: string; token: string }): Promise<{ outcome: ClaimOutcome; seen: string }> {
      const [cname, txt] = await Promise.all([lookupCname(input.domain), lookupTxt(verificationRecordName(input.domain))]);
      const seen = `${cname.seen}; ${txt.seen}`;
      if (!cname.names.includes(input.target) && !txt.values.includes(input.token)) return { outcome: 'unproven', seen };
      return { outcome: await deps.repos.customDomains.verify({ id: input.domainId }), seen };
    },

    async setDomainStatus({ domainId, status, failure }: { domainId: string; status: DomainStatus; failure: string | null }): Promise<boolean> {
      return deps.repos.customDomains.setStatus({ id: domainId, status, failure });
    },

    /**
     * One ACME order for the domain, its key sealed and stored with the chain: the domain is
     * `active` when this returns. Heartbeats while the CA works, so a lost worker is noticed. A
     * failed attempt is written to the domain's `failure` (status unchanged) before Temporal
     * retries it, so retries are visible to the user.
     */
    async issueCertificate({ domainId, domain }: { domainId: string; domain: string }): Promise<IssuedCertificate> {
      if (!deps.issue) throw ApplicationFailure.create({ type: 'acme_off', message: 'ACME_DIRECTORY_URL is off on this worker', nonRetryable: true });
      const claim = await deps.repos.customDomains.forRun({ id: domainId });
      if (!claim) throw gone();
      // Only the claim DNS proved gets a certificate, whatever asked for one.
      if (!claim.verified_at) throw ApplicationFailure.create({ type: 'domain_unverified', message: 'the claim does not hold this name', nonRetryable: true });
      const { attempt } = Context.current().info;
      const beat = setInterval(() => Context.current().heartbeat(), 2_000);
      try {
        const cert = await deps.issue({ domainId, domain });
        const stored = await deps.repos.customDomains.storeCertificate({
          id: domainId,
          certPem: cert.certPem,
          keySealed: deps.box.seal(cert.keyPem, tlsKeyContext(domainId, domain)),
          notBefore: cert.notBefore,
          notAfter: cert.notAfter,
          serial: cert.serial,
        });
        if (!stored) throw gone();
        return { notBefore: cert.notBefore.getTime(), notAfter: cert.notAfter.getTime(), serial: cert.serial };
      } catch (err) {
        const failure = `attempt ${attempt} failed, retrying: ${err instanceof Error ? err.message : String(err)}`;
        await deps.repos.customDomains.noteAttemptFailure({ id: domainId, failure }).catch(() => undefined);
        throw err;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
export type DomainActivities = ReturnType<typeof createDomainActivities>;
