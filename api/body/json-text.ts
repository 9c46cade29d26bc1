import { AppError } from '../../domain/errors';

/** How deep a JSON request body may nest (docs/limits.md): deeper is 400 `body_too_deep`. */
const JSON_MAX_DEPTH = 64;

/**
 * The deepest nesting of arrays and objects in `text`, counted in one pass over its characters
 * (brackets inside strings do not count), stopping as soon as it passes `max`. Runs before
 * JSON.parse, so no parser, validator or logger ever walks a body nested 200,000 deep.
 */
function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** 400 `body_too_deep` when `text` nests deeper than JSON_MAX_DEPTH; call it before parsing. */
export function refuseDeepJson(text: string): void {
  if (jsonDepthExceeds(text, JSON_MAX_DEPTH)) {
    throw new AppError('body_too_deep', `the request body nests arrays and objects more than ${JSON_MAX_DEPTH} deep`);
  }
}

/** Keys that would reach an object's prototype if the value were ever merged into another. */
function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('forbidden key __proto__');
  return value;
}

/**
 * A JSON request body as the API accepts it: an object or array (empty text: `{}`), nested at most
 * JSON_MAX_DEPTH deep, no `__proto__` keys. `invalid` names what to answer for text that is not JSON.
 */
export function parseJsonBody(text: string, invalid: () => AppError): unknown {
  if (text.trim() === '') return {};
  const first = text.trimStart()[0];
  if (first !== '[' && first !== '{') throw invalid();
  refuseDeepJson(text);
  try {
    return JSON.parse(text, refuseProtoKeys) as unknown;
  } catch {
    throw invalid();
  }
}
