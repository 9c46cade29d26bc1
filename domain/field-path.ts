/** `body.agents[0].name`-style path of a validation issue; the root says where the value came from. */
export function fieldPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let out = root;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || root;
}
