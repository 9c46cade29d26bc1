import assert from 'node:assert/strict';
import { ApiRouter } from '../../api/routing';

/** The route table refuses an authenticated route that declares no role (issue 50, item 5). */
describe('the route table', () => {
  const router = () => new ApiRouter({ authenticate: async (_ctx, next) => next(), limit: () => async (_ctx, next) => next(), bodyLimitBytes: 1024 });

  it('refuses an authenticated route without a declared role, naming it', () => {
    assert.throws(
      () => router().add({ method: 'get', path: '/v1/things', operationId: 'listThings', tag: 'Things', summary: 'things', response: { status: 200, description: 'ok' } }, () => ({})),
      /GET \/v1\/things declares no role/,
    );
  });

  it('takes a public route without one, and an authenticated route with one', () => {
    const r = router();
    r.add({ method: 'get', path: '/v1/public/things', operationId: 'publicThings', tag: 'Things', summary: 'things', auth: 'none', response: { status: 200, description: 'ok' } }, () => ({}));
    r.add({ method: 'get', path: '/v1/things', operationId: 'listThings', tag: 'Things', summary: 'things', role: 'viewer', response: { status: 200, description: 'ok' } }, () => ({}));
    assert.equal(r.defs.length, 2);
  });
});
