/**
 * The built-in tools an agent can name in `tools`. The catalogue is the one list; an unknown name
 * is a 400. File tools need `filesystem: "drive"` (they act on the conversation's file space).
 */
const toolCatalogue = {
  'files.read': { kind: 'read', needsDrive: true, description: 'Read a file of the conversation drive.' },
  'files.write': { kind: 'write', needsDrive: true, description: 'Create or replace a file of the conversation drive.' },
  'files.edit': { kind: 'edit', needsDrive: true, description: 'Replace an exact piece of text in a file.' },
  'files.list': { kind: 'read', needsDrive: true, description: 'List files and folders of the conversation drive.' },
  'files.search': { kind: 'search', needsDrive: true, description: 'Find text in the files of the conversation drive.' },
  'data.run': {
    kind: 'data',
    needsDrive: true,
    description: "Run a short JavaScript program in a sandbox over the conversation drive's files (CSV and JSON helpers).",
  },
  'knowledge.search': { kind: 'search', needsDrive: false, description: "Full-text search over the agent's knowledge files." },
  'web.fetch': { kind: 'web', needsDrive: false, description: 'Fetch a public web page or API over HTTP(S).' },
  plan: { kind: 'plan', needsDrive: false, description: 'Keep a visible step list for the current turn.' },
} as const;

export type BuiltInToolName = keyof typeof toolCatalogue;
export const builtInToolNames = Object.keys(toolCatalogue) as [BuiltInToolName, ...BuiltInToolName[]];

/**
 * The naming rule (docs/tools.md: Tools): the model calls a built-in tool by its catalogue name
 * with the dot made an underscore (`files.write` → `files_write`: model APIs allow no dots);
 * `tools` and tool events use the catalogue name.
 */
export function modelToolName(name: BuiltInToolName): string {
  return name.replace('.', '_');
}

const isBuiltIn = (name: string): name is BuiltInToolName => Object.hasOwn(toolCatalogue, name);

/** Whether the built-in tool acts on the conversation's drive (offered only with `filesystem: "drive"`). */
export const needsDrive = (name: BuiltInToolName): boolean => toolCatalogue[name].needsDrive;

/** The 400 of a name that is no built-in tool: the valid names, and the catalogue name of a model name. */
export function unknownToolMessage(input: unknown): string {
  const asModelName = typeof input === 'string' ? builtInToolNames.find((t) => modelToolName(t) === input && t !== input) : undefined;
  const hint = asModelName ? `; "${asModelName}" is its name in tools (the model calls it ${JSON.stringify(input)})` : '';
  return `unknown tool ${JSON.stringify(input)}${hint}; the built-in tools are ${builtInToolNames.join(', ')} (HTTP and MCP tools go in httpTools and mcpServers)`;
}

/** Why a configuration's file tools could not be offered (it has no drive), or undefined. */
export function fileToolsWithoutDrive(config: { filesystem: 'drive' | 'none'; tools: readonly string[] }): string | undefined {
  if (config.filesystem === 'drive') return undefined;
  const fileTools = config.tools.filter((t) => isBuiltIn(t) && toolCatalogue[t].needsDrive);
  if (fileTools.length === 0) return undefined;
  return `is "${config.filesystem}", but tools has ${fileTools.join(', ')}, which act on the conversation's drive: set filesystem: "drive" (or remove the file tools)`;
}
