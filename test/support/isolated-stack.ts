import type { Config } from '../../config/env';
import { kill, type Proc } from '../../harness/fault-stack';
import { startAnthropicServer } from '../../harness/model-servers/anthropic-server';
import { type OpenAIServer, startOpenAIServer } from '../../harness/model-servers/openai-server';
import type { ModelServer } from '../../harness/model-servers/scripted-server';
import { freePort } from '../../infra/temporal-dev-server';
import { Service } from '../../sdk/src';
import { lazyApi, type RunningApi, startTestApi, type TestApi, type TestApiOptions } from './api';
import { isolatedConfig, isolatedEnv, spawnWorker, startInProcessWorker } from './workers';

type ModelWire = 'openai' | 'anthropic';
type ServerOf<W> = W extends 'openai' ? OpenAIServer : ModelServer;

export interface IsolatedStackOptions<W extends ModelWire | undefined> {
  /** A scripted model server of that wire, which both grades talk to unless `env` says otherwise. */
  model?: W;
  /**
   * Variables of this stack (after the model's); a function when they need something started
   * first (it gets the API's address when `publicBaseURL` is set).
   */
  env?: Record<string, string> | ((api: { baseURL: string }) => Record<string, string> | Promise<Record<string, string>>);
  /** The API listens on a port chosen before `env` is made, and PUBLIC_BASE_URL names it (redirect URIs). */
  publicBaseURL?: boolean;
  /** In this process (quick), a process of its own (a test can SIGKILL it), or none (a test starts its own). */
  worker: 'inline' | 'process' | 'none';
  /** How the API listens and logs (an address off loopback, a logger a test reads…). */
  api?: () => Omit<TestApiOptions, 'config'>;
}

/** A workspace with credits, and the SDK client of its key. */
interface StackWorkspace {
  ws: Service;
  apiKey: string;
  workspaceId: string;
}

/**
 * All but `env`, `config` and `worker` may be taken out of it in the describe body (the members of
 * `api` and `model` read the running stack); those three are read in hooks and tests.
 */
export interface IsolatedStack<W extends ModelWire | undefined> {
  api: RunningApi;
  /** The scripted model server (`model` option). */
  model: ServerOf<W>;
  readonly env: Record<string, string>;
  readonly config: Config;
  /** The newest worker process (`worker: 'process'`). */
  readonly worker: Proc;
  /** A new workspace with `credits` (default 100) and a client of its key. */
  workspace: (credits?: number) => Promise<StackWorkspace>;
  /** Another worker process on this stack's queues; it becomes `worker`. */
  startWorker: () => Promise<Proc>;
  /** SIGKILLs every worker process of this stack; resolves once they have exited. */
  killWorkers: () => Promise<void>;
}

const modelEnv = (wire: ModelWire, url: string): Record<string, string> =>
  wire === 'openai'
    ? { MODEL_STANDARD: 'openai:gpt-test', MODEL_PREMIUM: 'openai:gpt-test', OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test' }
    : { MODEL_STANDARD: 'anthropic:claude-test', MODEL_PREMIUM: 'anthropic:claude-test', ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: 'sk-ant-test' };

interface Running {
  env: Record<string, string>;
  config: Config;
  api: TestApi;
  model?: ModelServer;
  inline?: { stop(): Promise<void> };
}

/**
 * An API, a worker and a model server of the calling `describe`'s own, for tests that need
 * another model or settings than the global fixture's, or that kill workers: a fresh task-queue
 * prefix keeps their turns away from the fixture's worker. Started by a `before` hook registered
 * here and stopped by an `after` hook, so call it in the describe body before hooks that use it;
 * what it returns reads the running stack, so use it in hooks and tests only.
 */
export function useIsolatedStack<W extends ModelWire | undefined = undefined>(options: IsolatedStackOptions<W>): IsolatedStack<W> {
  let running: Running | undefined;
  // Apart from `running`, so that a `before` failing after it started still closes it.
  let server: ModelServer | undefined;
  const processes: Proc[] = [];
  const stack = (): Running => {
    if (!running) throw new Error('useIsolatedStack: the stack runs between the before and after hooks of the describe that called it');
    return running;
  };

  before(async () => {
    const model = options.model === undefined ? undefined : options.model === 'openai' ? await startOpenAIServer() : await startAnthropicServer();
    server = model;
    const port = options.publicBaseURL ? await freePort() : undefined;
    const baseURL = port === undefined ? '' : `http://127.0.0.1:${port}`;
    const own = typeof options.env === 'function' ? await options.env({ baseURL }) : options.env;
    const env = isolatedEnv({
      ...(model && options.model ? modelEnv(options.model, model.url) : {}),
      ...(port === undefined ? {} : { PUBLIC_BASE_URL: baseURL }),
      ...own,
    });
    const config = isolatedConfig(env);
    const api = await startTestApi({ port, ...options.api?.(), config });
    running = { env, config, api, model };
    if (options.worker === 'inline') running.inline = await startInProcessWorker(config);
    if (options.worker === 'process') processes.push(await spawnWorker(env));
  });
  after(async () => {
    await Promise.all(processes.map((p) => kill(p)));
    await running?.inline?.stop();
    await running?.api.stop();
    await server?.close();
    server = undefined;
    running = undefined;
  });

  const model = new Proxy({} as ServerOf<W>, {
    // The server starts in `before`: each read and write goes to the one running then.
    get(_, key) {
      const server = stack().model;
      if (!server) throw new Error('useIsolatedStack: no `model` option, so no model server');
      const value: unknown = Reflect.get(server, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(server) : value;
    },
    set(_, key, value) {
      const server = stack().model;
      return server !== undefined && Reflect.set(server, key, value);
    },
  });

  const api = lazyApi(() => stack().api);
  return {
    api,
    model,
    get env() {
      return stack().env;
    },
    get config() {
      return stack().config;
    },
    get worker() {
      const last = processes.at(-1);
      if (!last) throw new Error("useIsolatedStack: no worker process (worker: 'process')");
      return last;
    },
    workspace: async (credits = 100) => {
      const { apiKey, workspace } = await api.newWorkspace({ credits });
      return { ws: new Service({ apiKey, baseURL: api.baseURL }), apiKey, workspaceId: workspace.id };
    },
    startWorker: async () => {
      const proc = await spawnWorker(stack().env);
      processes.push(proc);
      return proc;
    },
    killWorkers: async () => {
      await Promise.all(processes.map((p) => kill(p)));
    },
  };
}
