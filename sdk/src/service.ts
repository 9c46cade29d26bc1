import { HttpClient } from './http.js';
import { resolveOptions, type ServiceOptions } from './options.js';
import { WorkspaceClient } from './workspace.js';

/** The shape of `Service`: a constructor and a static factory, both yielding a workspace handle. */
export interface ServiceConstructor {
  /**
   * `new Service(options?)` returns the workspace handle of the configured API key. No request
   * is sent; options and environment defaults are read now.
   */
  new (options?: ServiceOptions): WorkspaceClient;
  /** The same as `new Service(options)`, as a function call. No request is sent. */
  getWorkspace(options?: ServiceOptions): WorkspaceClient;
}

/** The workspace handle `Service` builds: a `WorkspaceClient` whose transport comes from options. */
class ServiceWorkspace extends WorkspaceClient {
  constructor(options?: ServiceOptions) {
    super(new HttpClient(resolveOptions(options)));
  }

  static getWorkspace(options?: ServiceOptions): WorkspaceClient {
    return new ServiceWorkspace(options);
  }
}

/**
 * Entry point of the SDK. Both forms give a `WorkspaceClient` and make no network call:
 *
 * ```ts
 * const ws = new Service({ apiKey });         // or: Service.getWorkspace({ apiKey })
 * const { credits } = await ws.get();
 * ```
 */
export const Service: ServiceConstructor = ServiceWorkspace;

/** The type of what `new Service()` returns, so `const ws: Service = new Service()` reads naturally. */
export type Service = WorkspaceClient;
