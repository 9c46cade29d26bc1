/** What the keyset-paged lists (`ws.audit`, `ws.conversations`) share: their time filters and walking every page. */

/** A time filter as the API takes it: a Date becomes its ISO text. */
export const isoOf = (t: Date | string | undefined): string | undefined => (t instanceof Date ? t.toISOString() : t);

/** Every item of a keyset-paged list, one page per request as the loop asks for more. */
export async function* allPages<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; nextCursor: string | null }>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    yield* next.data;
    cursor = next.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
