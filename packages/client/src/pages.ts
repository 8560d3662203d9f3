// Cursor-paged lists as async iterators (messages.listAll, audit.listAll).

/**
 * The items of a cursor-paged list, one page fetched at a time as the caller iterates (and only
 * then: breaking out of the loop fetches nothing more).
 */
export async function* pages<P extends { nextCursor: string | null }, T>(
  fetchPage: (cursor: string | null) => Promise<P>,
  itemsOf: (page: P) => readonly T[],
): AsyncIterableIterator<T> {
  let cursor: string | null = null;
  do {
    const page: P = await fetchPage(cursor);
    yield* itemsOf(page);
    cursor = page.nextCursor;
  } while (cursor !== null);
}
