import { effectiveParamLocation, type HttpTool, type HttpToolParam } from '../../domain/agent-tools';
import type { ModelTool } from '../model/types';

/**
 * An HTTP tool's params from the model's side: the JSON Schema it is offered with, and its
 * arguments checked strictly against them (type, enum, required, no unknown names; `null`
 * counts as absent). How arguments then reach the request: http-tool.ts.
 */

type ParamType = HttpToolParam['type'];

/** A param's enum as values of its own type (the schema allows strings and numbers mixed). */
function enumOf(p: HttpToolParam): Array<string | number | boolean> | undefined {
  if (!p.enum) return undefined;
  switch (p.type) {
    case 'string':
      return p.enum.map(String);
    case 'number':
    case 'integer':
      return p.enum.map(Number).filter((n) => Number.isFinite(n) && (p.type === 'number' || Number.isInteger(n)));
    case 'boolean':
      return p.enum.map((e) => String(e) === 'true');
  }
}

/** The tool as the model sees it. */
export function httpToolDefinition(tool: HttpTool): ModelTool {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(tool.params ?? {})) {
    const property: Record<string, unknown> = { type: p.type };
    if (p.description) property.description = p.description;
    const values = enumOf(p);
    if (values) property.enum = values;
    properties[name] = property;
    if (p.required === true || effectiveParamLocation(tool.method, p) === 'path') required.push(name);
  }
  return {
    name: tool.name,
    description: tool.description,
    parameters: { type: 'object', properties, required, additionalProperties: false },
  };
}

function typeMatches(type: ParamType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

const TYPE_WORDS: Record<ParamType, string> = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false' };

/** The arguments given (null dropped), or every problem with them. */
export function validateArgs(tool: HttpTool, args: Record<string, unknown>): { ok: true; values: Map<string, unknown> } | { ok: false; error: string } {
  const params = tool.params ?? {};
  const problems: string[] = [];
  const values = new Map<string, unknown>();
  for (const name of Object.keys(args)) {
    if (!Object.hasOwn(params, name)) {
      const known = Object.keys(params);
      problems.push(`unknown argument "${name}" (${known.length ? `expected: ${known.join(', ')}` : 'this tool takes no arguments'})`);
    }
  }
  for (const [name, p] of Object.entries(params)) {
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    const location = effectiveParamLocation(tool.method, p);
    if (value === undefined || value === null) {
      if (p.required === true || location === 'path') problems.push(`"${name}" is required`);
      continue;
    }
    if (!typeMatches(p.type, value)) {
      problems.push(`"${name}" must be ${TYPE_WORDS[p.type]} (got ${JSON.stringify(value)})`);
      continue;
    }
    const allowed = enumOf(p);
    if (allowed && !allowed.includes(value as string | number | boolean)) {
      problems.push(`"${name}" must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`);
      continue;
    }
    if (location === 'path' && value === '') {
      problems.push(`"${name}" must not be empty (it is part of the URL path)`);
      continue;
    }
    if (location === 'header' && typeof value === 'string' && /[\r\n\0]/.test(value)) {
      problems.push(`"${name}" must not contain line breaks (it is a header)`);
      continue;
    }
    values.set(name, value);
  }
  return problems.length ? { ok: false, error: problems.join('; ') } : { ok: true, values };
}
