/**
 * Gives `handle` the fields of `record` as own enumerable properties, so the result has the
 * handle's methods (on its prototype) and serializes to exactly the record (`JSON.stringify`,
 * spread, `Object.keys`). Defined rather than assigned: a field never trips over an accessor.
 */
export function withRecord<H extends object, R extends object>(handle: H, record: R): H & R {
  for (const [key, value] of Object.entries(record)) {
    Object.defineProperty(handle, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return handle as H & R;
}
