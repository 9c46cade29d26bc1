import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Repositories } from '../db/repositories';

export const devCredentialsSchema = z.object({
  workspaceId: z.string(),
  apiKey: z.string(),
  baseURL: z.string(),
});
type DevCredentials = z.infer<typeof devCredentialsSchema>;

export function devCredentialsPath(dataDir: string): string {
  return path.join(dataDir, 'dev-credentials.json');
}

/**
 * On first start: a workspace `dev` with 1000 credits and a key, written to
 * DATA_DIR/dev-credentials.json (mode 600). Later starts reuse the file while its
 * workspace still exists.
 */
export async function ensureDevCredentials(
  repos: Repositories,
  dataDir: string,
  baseURL: string,
): Promise<{ credentials: DevCredentials; created: boolean }> {
  const file = devCredentialsPath(dataDir);
  if (existsSync(file)) {
    const parsed = devCredentialsSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success && (await repos.workspaces.get({ id: parsed.data.workspaceId }))) {
      const credentials = { ...parsed.data, baseURL };
      if (parsed.data.baseURL !== baseURL) await write(file, credentials);
      return { credentials, created: false };
    }
  }
  const workspace = await repos.workspaces.create({ name: 'dev', credits: 1000 });
  // The machine's own operator: `npm start` lets its dev workspace run the diagnostics probe.
  await repos.workspaces.setDiagnosticsAllowed({ id: workspace.id, allowed: true });
  const { apiKey } = await repos.apiKeys.create({ workspaceId: workspace.id });
  const credentials = { workspaceId: workspace.id, apiKey, baseURL };
  await write(file, credentials);
  return { credentials, created: true };
}

async function write(file: string, credentials: DevCredentials): Promise<void> {
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
}
