import assert from 'node:assert/strict';
import { normalizeDomain } from '../../domain/custom-domains';
import { renewAt } from '../../domain/runs/custom-domain';

describe('custom domain names and renewal time', () => {
  const name = (text: string) => normalizeDomain(text, 'agents.example.com');

  it('takes host names in any case, with a trailing dot, and IDNs in their ASCII form', () => {
    assert.deepEqual(name('Chat.Shop.COM.'), { domain: 'chat.shop.com' });
    assert.deepEqual(name('bücher.example'), { domain: 'xn--bcher-kva.example' });
  });

  it('refuses addresses, wildcards, single labels, URLs and hosts under the agents domain, saying why', () => {
    const problems: Array<[string, RegExp]> = [
      ['10.0.0.1', /IP address/],
      ['[::1]', /IP address/],
      ['1.2.3.400', /IP address|not a valid host name/],
      ['*.shop.com', /wildcard/],
      ['localhost', /not a valid host name/],
      ['https://chat.shop.com', /without scheme/],
      ['chat.shop.com:8443', /without scheme, port/],
      ['under_score.shop.com', /not a valid host name/],
      ['support.agents.example.com', /served already/],
      ['agents.example.com', /served already/],
      [`${'a'.repeat(64)}.com`, /not a valid host name/],
    ];
    for (const [text, problem] of problems) {
      const r = name(text);
      assert.ok('problem' in r, `${text} was accepted`);
      assert.match(r.problem, problem, text);
    }
  });

  it('renews at two-thirds of the lifetime (day 60 of a 90-day certificate)', () => {
    const day = 86_400_000;
    assert.equal(renewAt({ notBefore: 0, notAfter: 90 * day }), 60 * day);
    assert.equal(renewAt({ notBefore: 1000, notAfter: 1000 + 24_000 }), 1000 + 16_000);
  });
});
