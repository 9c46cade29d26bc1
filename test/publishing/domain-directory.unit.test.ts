import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DomainDirectory } from '../../api/server/domain-directory';
import type { CustomDomainsRepository } from '../../db/repositories/custom-domains';
import { tlsKeyContext } from '../../domain/custom-domains';
import { SecretBox } from '../../domain/secret-box';

/** A self-made certificate for `domain` (openssl), as the provisioning workflow would store one. */
function selfSigned(domain: string): { certPem: string; keyPem: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'directory-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${domain}`,
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { certPem: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('domain directory: a full cache lets go of the least recently used names', () => {
  const box = new SecretBox(randomBytes(32));
  const served = 'shop.example.com';
  const cert = selfSigned(served);
  /** The names read from "PostgreSQL", in order: only `served` has a certificate. */
  let reads: string[];
  const repo = {
    async servedCertificate({ domain }: { domain: string }) {
      reads.push(domain);
      if (domain !== served) return undefined;
      return { id: 'dom_1', domain, agentId: 'agt_1', certPem: cert.certPem, keySealed: box.seal(cert.keyPem, tlsKeyContext('dom_1', domain)) };
    },
  } as unknown as CustomDomainsRepository;

  beforeEach(() => {
    reads = [];
  });

  it('a flood of unknown names does not push out a name in use', async () => {
    const directory = new DomainDirectory({ repo, box, ttlMs: 60_000, missTtlMs: 60_000, maxEntries: 3 });
    assert.equal((await directory.lookup(served))?.agentId, 'agt_1');
    for (let i = 0; i < 50; i++) {
      await directory.lookup(`flood-${i}.example.org`);
      // The served name is used between the flood's names, as a live site's requests would.
      assert.equal((await directory.lookup(served))?.agentId, 'agt_1');
    }
    assert.equal(reads.filter((name) => name === served).length, 1, 'the served name was read once and kept');
    assert.equal(reads.length, 51);
  });

  it('evicts the least recently used name first, not everything', async () => {
    const directory = new DomainDirectory({ repo, box, ttlMs: 60_000, missTtlMs: 60_000, maxEntries: 3 });
    for (const name of ['a.example.org', 'b.example.org', 'c.example.org']) await directory.lookup(name);
    await directory.lookup('a.example.org'); // a is now the most recently used
    await directory.lookup('d.example.org'); // full: b goes
    assert.deepEqual(reads, ['a.example.org', 'b.example.org', 'c.example.org', 'd.example.org']);
    await directory.lookup('a.example.org');
    await directory.lookup('c.example.org');
    await directory.lookup('d.example.org');
    assert.equal(reads.length, 4, 'a, c and d are still cached');
    await directory.lookup('b.example.org');
    assert.equal(reads.at(-1), 'b.example.org', 'b was evicted');
  });
});
