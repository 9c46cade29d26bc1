import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A random 32-byte key kept in DATA_DIR (mode 600), made on first use: how the embedded default
 * gets keys an operator would otherwise set by environment (URL_SIGNING_KEY, SECRETS_KEY).
 */
export async function ensureKeyFile(dataDir: string, name: string): Promise<string> {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e; // another process made it first: use theirs
  });
  return (await readFile(file, 'utf8')).trim();
}
