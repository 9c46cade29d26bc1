import { context, propagation, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Next } from 'koa';
import { REQUEST_ID_ATTRIBUTE } from '../../infra/tracing/spans';
import type { ApiContext } from '../context';

/** The route template the router matched (`/v1/conversations/:conversationId/turns`); never the raw path, which holds ids. */
function routeOf(ctx: ApiContext): string | undefined {
  const matched = (ctx as ApiContext & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : undefined;
}

/**
 * The server span of a request (loaded only when tracing is on): everything the request does —
 * starting a turn's workflow included — runs inside it, so the turn's trace starts here. A caller's
 * `traceparent` is continued. The span is named `METHOD /route/template` once the router has
 * matched (before that only the method is known); unmatched paths keep the bare method.
 */
export function requestSpan(tracer: Tracer) {
  return async function traceRequest(ctx: ApiContext, next: Next): Promise<void> {
    const parent = propagation.extract(context.active(), ctx.headers);
    const attributes = { [ATTR_HTTP_REQUEST_METHOD]: ctx.method, [REQUEST_ID_ATTRIBUTE]: ctx.state.requestId };
    await tracer.startActiveSpan(ctx.method, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
      try {
        await next();
      } finally {
        const route = routeOf(ctx);
        if (route !== undefined) {
          span.updateName(`${ctx.method} ${route}`);
          span.setAttribute(ATTR_HTTP_ROUTE, route);
        }
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    });
  };
}
