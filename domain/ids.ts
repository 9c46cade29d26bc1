import { randomBytes } from 'node:crypto';

/** Every id carries a prefix that says what it names (docs/http-api.md: Formats we chose). */
const idPrefixes = {
  workspace: 'ws',
  apiKey: 'key',
  agent: 'agt',
  version: 'ver',
  project: 'prj',
  conversation: 'cnv',
  turn: 'trn',
  probe: 'prb',
  testDeployment: 'dep',
  webhook: 'whk',
  domain: 'dom',
  approval: 'apr',
  account: 'acc',
  member: 'mem',
  session: 'ses',
  link: 'lnk',
  audit: 'aud',
  erasure: 'era',
} as const;

type IdKind = keyof typeof idPrefixes;

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Random lower-case base36 text; `length` characters of ~5.17 bits each. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % 36];
  return out;
}

/** A new id such as `agt_3k9x…` (20 random base36 characters, ~103 bits). */
export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${randomToken(20)}`;
}
