import type { AddressRules } from './address-policy';
import type { AgentConfig } from './agent';

const ALLOW = 'an operator can allow it with OUTBOUND_ALLOW_PRIVATE';

/**
 * What an agent's answer warns of (`Agent.warnings`, on create and update): HTTP tools and MCP
 * servers whose URL the worker's outbound fetch will refuse — a literal private, loopback or
 * link-local address, `localhost`, a cloud metadata name — so a turn's call fails, not the save.
 * Judged without DNS: a name that resolves to a private address is only found when a turn calls it.
 */
export function toolUrlWarnings(config: Pick<AgentConfig, 'httpTools' | 'mcpServers'>, rules: AddressRules): string[] {
  const refusal = (url: string) => {
    try {
      const parsed = new URL(url);
      const reason = rules.urlRefusal(parsed);
      return reason === undefined ? undefined : `${parsed.hostname} is a private or internal address (${reason})`;
    } catch {
      return undefined; // the schema checked the URL; a placeholder in the host is judged at call time
    }
  };
  const warnings: string[] = [];
  for (const tool of config.httpTools) {
    const why = refusal(tool.url);
    if (why) warnings.push(`HTTP tool ${tool.name}: ${why}, which tools may not reach, so every call of it will fail; ${ALLOW}`);
  }
  for (const server of config.mcpServers) {
    const why = refusal(server.url);
    if (why) warnings.push(`MCP server ${server.name}: ${why}, which tools may not reach, so turns cannot list or call its tools; ${ALLOW}`);
  }
  return warnings;
}
