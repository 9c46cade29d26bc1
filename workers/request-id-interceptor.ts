import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { REQUEST_ID_KEY } from '../domain/request-id';
import { REQUEST_ID_ATTRIBUTE, type Spans } from '../infra/tracing/spans';

/**
 * The request id an activity was scheduled with (the header workflows/request-id-interceptors.ts
 * sets) goes into every log line the activity writes — `Context.current().log` and the SDK's own
 * "Activity completed/failed" lines, all of which reach our JSON log — and onto the activity's span.
 * The SDK writes one line before any interceptor sees the headers ("Activity started", at debug):
 * that one carries the workflow id (which names the turn) but not the request id.
 */
export function requestIdActivityInterceptor(spans: Spans): ActivityInterceptorsFactory {
  return () => {
    let requestId: string | undefined;
    return {
      inbound: {
        execute(input, next) {
          const header = input.headers[REQUEST_ID_KEY];
          if (header) {
            const value: unknown = defaultPayloadConverter.fromPayload(header);
            if (typeof value === 'string') {
              requestId = value;
              // Inside the tracing interceptor (registered before this one): the activity's span.
              spans.annotate({ [REQUEST_ID_ATTRIBUTE]: value });
            }
          }
          return next(input);
        },
      },
      outbound: {
        getLogAttributes(input, next) {
          return next(requestId === undefined ? input : { ...input, [REQUEST_ID_KEY]: requestId });
        },
      },
    };
  };
}
