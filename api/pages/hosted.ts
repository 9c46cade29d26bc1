import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Router from '@koa/router';
import { buildEmbed } from '../../embed/build';
import { renderChatPage } from '../../embed/page-template';
import type { ServedAgent } from '../../db/repositories/deployments';
import type { DeploymentsRepository } from '../../db/repositories/deployments';
import type { AllowedOriginsRepository } from '../../db/repositories/allowed-origins';
import { publicTokenContext } from '../../domain/public-token';
import type { SecretBox } from '../../domain/secret-box';
import type { ApiContext, ApiState } from '../context';
import { DOCS_CSP, renderDocsPage } from './docs-page';
import { sendNotFoundPage } from './not-found-page';

const DIST = path.resolve(__dirname, '../../embed/dist');
/** A Map, not an object: a name from the URL (`constructor`, `__proto__`) must not find inherited keys. */
const ASSETS = new Map<string, string>([
  ['v1.js', 'application/javascript; charset=utf-8'],
  ['chat.js', 'application/javascript; charset=utf-8'],
  ['chat.css', 'text/css; charset=utf-8'],
  ['redoc.standalone.js', 'application/javascript; charset=utf-8'],
]);

/**
 * The browser files, read once from `embed/dist` — built there first when a fresh checkout has
 * not built them yet (esbuild takes well under a second).
 */
interface Asset {
  raw: Buffer;
  /** Compressed once at load: the 4 KB budget of v1.js is a gzip size, so it must travel gzipped. */
  gzip: Buffer;
}

function assetStore(): (name: string) => Promise<Asset> {
  let loaded: Promise<Map<string, Asset>> | undefined;
  const load = async () => {
    const read = () =>
      Promise.all(
        [...ASSETS.keys()].map(async (name) => {
          const raw = await readFile(path.join(DIST, name));
          return [name, { raw, gzip: gzipSync(raw, { level: 9 }) }] as const;
        }),
      );
    try {
      return new Map(await read());
    } catch {
      await buildEmbed({ outdir: DIST });
      return new Map(await read());
    }
  };
  return async (name) => {
    loaded ??= load().catch((err: unknown) => {
      loaded = undefined;
      throw err;
    });
    return (await loaded).get(name)!;
  };
}

interface HostedDeps {
  deployments: DeploymentsRepository;
  allowedOrigins: AllowedOriginsRepository;
  box: SecretBox;
  /** Where the page calls the public API; unset: the origin the page was served from. */
  publicBaseURL: string | undefined;
}

/**
 * A strict policy for the chat page: its own script and styles only, network only to the API,
 * framed by any site (that is what the embed does) or, when the agent lists allowed origins, by
 * those and our own origin only. Model output is sanitised markdown, and this policy stops
 * anything that slips through from loading or running.
 */
function pageSecurityHeaders(ctx: ApiContext, apiBase: string, allowedOrigins: string[]): void {
  const api = new URL(apiBase).origin;
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self' ${api}`,
      "font-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${allowedOrigins.length === 0 ? '*' : ["'self'", ...allowedOrigins].join(' ')}`,
    ].join('; '),
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
}

/**
 * Hosted assets (not part of the JSON API): `/embed/v1.js`, the chat page's bundle under
 * `/embed/assets/`, the hosted page `/embed/<agentId>` of an agent's production version, and `/`
 * on a deployed agent's own host (prod or test: `ctx.state.site`).
 */
export function hostedRoutes(deps: HostedDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const asset = assetStore();

  const sendAsset = async (ctx: ApiContext, name: string) => {
    const file = await asset(name);
    ctx.type = ASSETS.get(name)!;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzip;
    } else {
      ctx.body = file.raw;
    }
  };

  const page = async (ctx: ApiContext, site: ServedAgent | undefined) => {
    if (!site) return sendNotFoundPage(ctx);
    // Our own origin (in Koa 3, ctx.origin is the request's Origin header).
    const apiBase = deps.publicBaseURL ?? `${ctx.protocol}://${ctx.host}`;
    // The token is resolved here, from the agent id, and travels only inside our own page.
    let token: string | null = null;
    if (!site.testDeploymentId) {
      const sealed = await deps.deployments.sealedToken({ workspaceId: site.workspaceId, agentId: site.agentId });
      if (sealed && sealed !== 'none') token = deps.box.open(sealed.sealed, publicTokenContext(site.agentId));
    }
    pageSecurityHeaders(ctx, apiBase, await deps.allowedOrigins.of({ agentId: site.agentId }));
    ctx.type = 'html';
    ctx.body = renderChatPage({
      agentId: site.agentId,
      name: site.config.name,
      greeting: site.config.greeting ?? null,
      apiBase,
      token,
      mode: site.testDeploymentId ? 'test' : 'prod',
    });
  };

  router.get('/embed/v1.js', (ctx) => sendAsset(ctx, 'v1.js'));
  // The API reference, on the API's host (agent hosts serve only their page and public routes).
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'html';
    ctx.body = renderDocsPage();
  });
  router.get('/docs/redoc.js', (ctx) => sendAsset(ctx, 'redoc.standalone.js'));
  router.get('/embed/assets/:file', async (ctx, next) => {
    const name = ctx.params.file ?? '';
    if (name === 'v1.js' || !ASSETS.has(name)) return next();
    await sendAsset(ctx, name);
  });
  router.get('/embed/:agentId', async (ctx) => {
    const agentId = ctx.params.agentId ?? '';
    const site = /^agt_[0-9a-z]{1,60}$/.test(agentId) ? await deps.deployments.servedById({ agentId }) : undefined;
    await page(ctx, site);
  });
  router.get('/', async (ctx) => {
    if (ctx.state.site) return page(ctx, ctx.state.site);
    // The API's own root (the address `npm start` prints): say where things are rather than 404.
    ctx.body = { service: 'hosted-agents', openapi: '/v1/openapi.json', health: '/healthz', readiness: '/readyz', embed: '/embed/v1.js' };
  });
  return router;
}
