import { ServiceError } from './errors.js';

/** Refuses a value that cannot stand in a URL path: nothing would be sent, or the wrong thing. */
function refuse(what: string, value: string, problem: string): ServiceError {
  return new ServiceError({
    code: 'invalid_request',
    status: 400,
    retryable: false,
    message: `${what} ${JSON.stringify(value)} ${problem}`,
  });
}

/**
 * One path segment (an id, a workflow name), percent-encoded. Empty, `.` and `..` are refused
 * with a `ServiceError` (code `invalid_request`): URL parsing drops or resolves them, so the
 * request would reach another resource (`workflows/..` is the agent itself).
 */
export function segment(value: string, what: string): string {
  if (value === '') throw refuse(what, value, 'is empty');
  if (value === '.' || value === '..') throw refuse(what, value, 'cannot be used in a URL');
  return encodeURIComponent(value);
}

/**
 * An id sent in a request body (`{ versionId }`), returned unchanged. Anything but a non-empty
 * string is refused with a `ServiceError` (code `invalid_request`), like an empty id in a path:
 * `JSON.stringify` would drop an `undefined` field and the service would answer about a missing
 * field instead of the id. `hint` (where to find a valid one) ends the message.
 */
export function bodyId(value: string, what: string, hint?: string): string {
  const tail = hint ? `; ${hint}` : '';
  if (typeof value !== 'string') {
    throw new ServiceError({ code: 'invalid_request', status: 400, retryable: false, message: `${what} must be a string, got ${typeof value}${tail}` });
  }
  if (value === '') throw refuse(what, value, `is empty${tail}`);
  return value;
}

/**
 * A file-space path: each `/`-separated segment percent-encoded, the separators kept. A path
 * naming nothing, or holding a `.` or `..` segment, is refused (see `segment`).
 */
export function filePath(path: string): string {
  const segments = path.split('/');
  if (segments.every((s) => s === '')) throw refuse('path', path, 'must name a file');
  if (segments.some((s) => s === '.' || s === '..')) throw refuse('path', path, 'must not contain . or .. segments');
  return segments.map(encodeURIComponent).join('/');
}
