import { readFile } from 'node:fs/promises';
import { Client, type ClientInterceptors, Connection, type ConnectionLike } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config/env';
import { payloadCodecFromConfig } from './payload-codec';

interface TemporalTarget {
  address: string;
  namespace: string;
  apiKey?: string;
  tls: boolean;
  tlsCertPath?: string;
  tlsKeyPath?: string;
  tlsCaPath?: string;
  tlsServerName?: string;
  /** Encrypts payloads (PAYLOAD_KEY); clients and workers of one deployment must agree. */
  payloadCodec?: PayloadCodec;
}

export function temporalTargetFromConfig(config: Config, address: string): TemporalTarget {
  return {
    address,
    namespace: config.TEMPORAL_NAMESPACE,
    apiKey: config.TEMPORAL_API_KEY,
    // An API key (Temporal Cloud) or a client certificate implies TLS.
    tls: config.TEMPORAL_TLS || config.TEMPORAL_API_KEY !== undefined || config.TEMPORAL_TLS_CERT_PATH !== undefined,
    tlsCertPath: config.TEMPORAL_TLS_CERT_PATH,
    tlsKeyPath: config.TEMPORAL_TLS_KEY_PATH,
    tlsCaPath: config.TEMPORAL_TLS_CA_PATH,
    tlsServerName: config.TEMPORAL_TLS_SERVER_NAME,
    payloadCodec: payloadCodecFromConfig(config),
  };
}

async function tlsOptions(t: TemporalTarget) {
  if (!t.tls) return undefined;
  const clientCertPair =
    t.tlsCertPath && t.tlsKeyPath
      ? { crt: await readFile(t.tlsCertPath), key: await readFile(t.tlsKeyPath) }
      : undefined;
  return {
    ...(clientCertPair ? { clientCertPair } : {}),
    ...(t.tlsCaPath ? { serverRootCACertificate: await readFile(t.tlsCaPath) } : {}),
    ...(t.tlsServerName ? { serverNameOverride: t.tlsServerName } : {}),
  };
}

/** A client for starting and querying workflows (used by the API and the CLI); `interceptors`: tracing's, when on. */
export async function connectTemporalClient(t: TemporalTarget, interceptors?: ClientInterceptors): Promise<Client> {
  const tls = await tlsOptions(t);
  const connection = await Connection.connect({
    address: t.address,
    ...(tls ? { tls } : {}),
    ...(t.apiKey ? { apiKey: t.apiKey } : {}),
    connectTimeout: '10 seconds',
  });
  // The connect check ran under the call context: switch it off again (see withCallDeadline).
  connection.callContextStorage.disable();
  return new Client({
    connection,
    namespace: t.namespace,
    ...(t.payloadCodec ? { dataConverter: { payloadCodecs: [t.payloadCodec] } } : {}),
    ...(interceptors ? { interceptors } : {}),
  });
}

/** The Rust-core connection a Worker polls through. */
export async function connectTemporalWorker(t: TemporalTarget): Promise<NativeConnection> {
  const tls = await tlsOptions(t);
  // Loaded here, not at the top: @temporalio/worker (with its bundler) costs the API ~0.2 s of
  // start-up, and only worker processes need it (docs/operations.md: Start-up).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NativeConnection: Native } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  return Native.connect({
    address: t.address,
    ...(tls ? { tls } : {}),
    ...(t.apiKey ? { apiKey: t.apiKey } : {}),
  });
}

/** Calls under a connection's call context now (see withCallDeadline), per connection. */
const callsWithContext = new WeakMap<ConnectionLike, number>();

/**
 * `connection.withDeadline(deadline, fn)`, leaving the connection's call context switched off
 * once no such call is in flight. The Temporal client keeps deadlines in an AsyncLocalStorage,
 * and on Node 20 the first `run` of any AsyncLocalStorage installs a promise hook that stays for
 * the life of the process: every promise of every request then pays for it, and the API's
 * middleware is an await-heavy loop. `disable()` removes the
 * hook while no other storage needs it. Every call of the client's `withDeadline`,
 * `withMetadata` or `withAbortSignal` in this project goes through here (eslint forbids the
 * others), so none is in flight when the context is switched off. The client itself runs every
 * namespaced call (a workflow start, a signal) under `withMetadata`, which switches it on again
 * until the next of these calls ends: measured under bench:turns at 1.7 % of the API's CPU
 * (bench/README.md, "Second round"), so it is left as it is rather than patched in the client.
 */
export async function withCallDeadline<T>(connection: ConnectionLike, deadline: number, fn: () => Promise<T>): Promise<T> {
  callsWithContext.set(connection, (callsWithContext.get(connection) ?? 0) + 1);
  try {
    return await connection.withDeadline(deadline, fn);
  } finally {
    const left = (callsWithContext.get(connection) ?? 1) - 1;
    callsWithContext.set(connection, left);
    // A connection of another kind (a test environment's) keeps its context as it is.
    if (left === 0 && connection instanceof Connection) connection.callContextStorage.disable();
  }
}

/** True when the cluster answers within `timeoutMs`. */
export async function pingTemporal(client: Client, timeoutMs = 2000): Promise<boolean> {
  try {
    await withCallDeadline(client.connection, Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a frontend on `address` describes `namespace` within 2 s: the server and its persistence
 * are both up (the dev server's and a cluster's start-up wait on it).
 */
export async function namespaceAnswers(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: '1 second' });
    const c = connection;
    await withCallDeadline(c, Date.now() + 2000, () => c.workflowService.describeNamespace({ namespace }));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
