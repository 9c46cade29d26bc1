import assert from 'node:assert/strict';
import { AuthFailures, presentedHost } from '../../api/limits/auth-failures';
import { RateLimitRefusal } from '../../domain/errors';

const refused = (p: Promise<void>) => assert.rejects(p, (e: unknown) => e instanceof RateLimitRefusal);

describe('failed credentials per address (api/limits/auth-failures.ts)', () => {
  it('past the limit an address is refused, but not for what this process found valid; a failure forgets it', async () => {
    const failures = new AuthFailures({ perAddress: 3, windowSeconds: 60 });
    failures.found('key:live');
    failures.found('key:revoked');
    for (let i = 0; i < 3; i++) failures.failed('10.0.0.1', `key:guess-${i}`);
    await refused(failures.check('10.0.0.1', 'key:never-seen'));
    await refused(failures.check('10.0.0.1'));
    await failures.check('10.0.0.1', 'key:live');
    await failures.check('10.0.0.2', 'key:never-seen');
    failures.failed('10.0.0.1', 'key:revoked');
    await refused(failures.check('10.0.0.1', 'key:revoked'));
  });

  it('a host name counts once per address and window; a credential every time', async () => {
    const failures = new AuthFailures({ perAddress: 2, windowSeconds: 60 });
    for (let i = 0; i < 5; i++) failures.failed('10.0.0.3', presentedHost('Nope.Example.ORG.'), { oncePerWindow: true });
    assert.equal(await failures.refusedFor('10.0.0.3'), 0);
    failures.failed('10.0.0.3', 'key:same');
    failures.failed('10.0.0.3', 'key:same');
    assert.ok((await failures.refusedFor('10.0.0.3')) > 0);
    assert.equal(presentedHost('Nope.Example.ORG.'), 'host:nope.example.org');
  });
});
