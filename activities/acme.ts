import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type * as AcmeClient from 'acme-client';
import type { CustomDomainsRepository } from '../db/repositories/custom-domains';
import { acmeAccountKeyContext } from '../domain/custom-domains';
import type { SecretBox } from '../domain/secret-box';

export interface AcmeSettings {
  directoryUrl: string;
  email: string | undefined;
  /** PEM file of a CA to trust besides the system's (a test CA such as Pebble's). */
  caFile: string | undefined;
}

/** What one issuance produced: the chain, its key (PEM, unsealed), validity and serial. */
export interface AcmeCertificate {
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
  serial: string;
}

/**
 * acme-client (and axios under it) is loaded on the first issuance, not at the worker's start: it
 * is a fifth of the worker's module loading, and most workers never issue a certificate.
 * Its HTTP settings are process-wide (one axios instance): a timeout, so a CA that stops
 * answering fails the attempt instead of holding it, and the extra CA.
 */
function loadAcme(settings: AcmeSettings): typeof AcmeClient {
  const acme = require('acme-client') as typeof AcmeClient;
  acme.axios.defaults.timeout = 30_000;
  if (settings.caFile) {
    acme.axios.defaults.httpsAgent = new Agent({ ca: [...rootCertificates, readFileSync(settings.caFile, 'utf8')] });
  }
  return acme;
}

/**
 * Obtains certificates with ACME (RFC 8555) through acme-client: one account per directory (its
 * key sealed in `acme_accounts`), HTTP-01 answered from `acme_challenges` by every API replica.
 */
export function createAcmeIssuer(deps: { repos: { customDomains: CustomDomainsRepository }; box: SecretBox; settings: AcmeSettings }) {
  let loaded: typeof AcmeClient | undefined;
  const acmeClient = () => (loaded ??= loadAcme(deps.settings));
  const { directoryUrl, email } = deps.settings;
  const context = acmeAccountKeyContext(directoryUrl);

  const accountKey = async (): Promise<string> => {
    const stored = await deps.repos.customDomains.accountKey({ directoryUrl });
    if (stored) return deps.box.open(stored, context);
    const fresh = (await acmeClient().crypto.createPrivateEcdsaKey()).toString('utf8');
    // Two workers racing keep one key: the first stored.
    const kept = await deps.repos.customDomains.keepAccountKey({ directoryUrl, keySealed: deps.box.seal(fresh, context) });
    return deps.box.open(kept, context);
  };

  return async function issue({ domainId, domain }: { domainId: string; domain: string }): Promise<AcmeCertificate> {
    const acme = acmeClient();
    const client = new acme.Client({ directoryUrl, accountKey: await accountKey(), backoffAttempts: 10, backoffMin: 500, backoffMax: 5_000 });
    const [key, csr] = await acme.crypto.createCsr({ altNames: [domain] }, await acme.crypto.createPrivateEcdsaKey());
    const certPem = await client.auto({
      csr,
      ...(email ? { email } : {}),
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // Our API answers the challenge; checking it from the worker would go through whatever
      // the worker's network makes of the name, which proves nothing about the CA's view.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        await deps.repos.customDomains.putChallenge({ token: challenge.token, domainId, domain, keyAuthorization });
      },
      challengeRemoveFn: async (_authz, challenge) => {
        await deps.repos.customDomains.deleteChallenge({ token: challenge.token });
      },
    });
    const leaf = new X509Certificate(acme.crypto.splitPemChain(certPem)[0]!);
    return { certPem, keyPem: key.toString('utf8'), notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo), serial: leaf.serialNumber };
  };
}
