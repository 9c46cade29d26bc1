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
  'knowledge.search': { kind: 'search', needsDrive: false, description: "Full-text search over the agent's knowledge files." },
  'web.fetch': { kind: 'web', needsDrive: false, description: 'Fetch a public web page or API over HTTP(S).' },
  plan: { kind: 'plan', needsDrive: false, description: 'Keep a visible step list for the current turn.' },
} as const;

export type BuiltInToolName = keyof typeof toolCatalogue;
export const builtInToolNames = Object.keys(toolCatalogue) as [BuiltInToolName, ...BuiltInToolName[]];
