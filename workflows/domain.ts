import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { DomainActivities } from '../activities/domains';
import { recordOutcome } from './outcome-sink';
import { DOMAIN_GONE, type DomainRunInput, type IssuedCertificate, renewAt, verificationRecordName } from '../domain/runs/custom-domain';

// Reads and status writes: retried until the database answers (a removed row is an answer).
const { domainForRun, verifyDomainClaim, setDomainStatus } = proxyActivities<DomainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// One ACME order per attempt. A few attempts, then the run records why it failed.
const { issueCertificate } = proxyActivities<DomainActivities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4, nonRetryableErrorTypes: [DOMAIN_GONE] },
});

const DNS_POLL_MAX_MS = 30_000;
const RENEW_RETRY_MAX_MS = 60 * 60_000;

const isGone = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === DOMAIN_GONE;
/** The run ends because the domain's row is gone (removed by its owner). */
const removed = (): undefined => {
  recordOutcome('domain', 'removed');
  return undefined;
};
const why = (err: unknown) => (err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err));

/**
 * Polls DNS (backing off to every 30 s) until the claim's records prove it (a CNAME of `target`,
 * or its TXT token) and it holds the name. Past the deadline the claim is `failed`, holding
 * nothing; a claim that proved its DNS while another holds the name is told so (only a DNS
 * controller gets that far). True when the claim holds the name, undefined when it was removed.
 */
async function waitForProof(input: DomainRunInput, target: string, token: string): Promise<boolean | undefined> {
  const deadline = Date.now() + input.dnsDeadlineSeconds * 1000;
  for (let delay = 1000; ; delay = Math.min(delay * 2, DNS_POLL_MAX_MS)) {
    const { outcome, seen } = await verifyDomainClaim({ domainId: input.domainId, domain: input.domain, target, token });
    if (outcome === 'held') return true;
    if (outcome === 'gone') return removed();
    const left = deadline - Date.now();
    if (left <= 0) {
      const failure =
        outcome === 'taken'
          ? `the DNS records of ${input.domain} are in place, but the name is in use by an earlier verified claim on this service; it is released when that claim is removed or fails: add the domain again then`
          : `no CNAME record of ${input.domain} points at ${target}, and no TXT record ${verificationRecordName(input.domain)} carries this claim's token, after ${input.dnsDeadlineSeconds} s (the resolver answered: ${seen}); add one, then add the domain again`;
      await setDomainStatus({ domainId: input.domainId, status: 'failed', failure });
      recordOutcome('domain', 'failed');
      return false;
    }
    await sleep(Math.min(delay, left));
  }
}

/** The first certificate: undefined when the run ends (failed, or the domain was removed). */
async function provision(input: DomainRunInput, target: string | null, token: string): Promise<IssuedCertificate | undefined> {
  if (target === null) {
    await setDomainStatus({ domainId: input.domainId, status: 'failed', failure: 'the agent is no longer deployed to production' });
    recordOutcome('domain', 'failed');
    return undefined;
  }
  if (!(await waitForProof(input, target, token))) return undefined;
  if (!(await setDomainStatus({ domainId: input.domainId, status: 'issuing', failure: null }))) return removed();
  try {
    const cert = await issueCertificate({ domainId: input.domainId, domain: input.domain });
    recordOutcome('domain', 'issued');
    return cert;
  } catch (err) {
    if (isGone(err)) return removed();
    await setDomainStatus({ domainId: input.domainId, status: 'failed', failure: `the certificate could not be issued: ${why(err)}` });
    recordOutcome('domain', 'failed');
    return undefined;
  }
}

/**
 * Renews until it succeeds or the certificate expires. The domain stays served while `renewing`;
 * each failed attempt is written to `failure`, retried with backoff (up to an hour apart). Each
 * attempt first checks the claim's DNS proof again: a holder whose records now point elsewhere
 * fails at expiry and releases the name.
 */
async function renew(input: DomainRunInput, current: IssuedCertificate, target: string | null, token: string): Promise<IssuedCertificate | undefined> {
  if (!(await setDomainStatus({ domainId: input.domainId, status: 'renewing', failure: null }))) return removed();
  for (let delay = 60_000; ; delay = Math.min(delay * 2, RENEW_RETRY_MAX_MS)) {
    try {
      const proof = await verifyDomainClaim({ domainId: input.domainId, domain: input.domain, target: target ?? '', token });
      if (proof.outcome === 'gone') return removed();
      if (proof.outcome !== 'held') throw new Error(`the DNS records of ${input.domain} no longer prove this claim (the resolver answered: ${proof.seen})`);
      const cert = await issueCertificate({ domainId: input.domainId, domain: input.domain });
      recordOutcome('domain', 'renewed');
      return cert;
    } catch (err) {
      if (isGone(err)) return removed();
      const left = current.notAfter - Date.now();
      if (left <= 0) {
        await setDomainStatus({ domainId: input.domainId, status: 'failed', failure: `the certificate expired; renewing it failed: ${why(err)}` });
        recordOutcome('domain', 'failed');
        return undefined;
      }
      if (!(await setDomainStatus({ domainId: input.domainId, status: 'renewing', failure: `renewal failed, retrying: ${why(err)}` }))) return removed();
      await sleep(Math.min(delay, left));
    }
  }
}

/**
 * A custom domain claim's life (one run per claim, on `ops`): wait until its DNS proves it and
 * it holds the name, obtain a certificate, then sleep until two-thirds of its lifetime and renew, continuing as new after
 * each renewal so the history stays short. Removal deletes the row and terminates the run;
 * a step that finds the row gone ends it too.
 */
export async function domainWorkflow(input: DomainRunInput): Promise<void> {
  const state = await domainForRun({ domainId: input.domainId });
  if (!state) return removed();
  const serving = state.certificate && (state.status === 'active' || state.status === 'renewing');
  const cert = serving ? state.certificate : input.phase === 'renew' ? undefined : await provision(input, state.target, state.token);
  if (!cert) return;
  await sleep(Math.max(renewAt(cert) - Date.now(), 0));
  if (!(await renew(input, cert, state.target, state.token))) return;
  await continueAsNew<typeof domainWorkflow>({ ...input, phase: 'renew' });
}
