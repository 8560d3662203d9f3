// Cursor paging for the /v1 lists: a stack of cursors, "Previous page" and "Next page".
import { useState } from 'preact/hooks';

export interface CursorPages {
  cursor: string | null;
  hasPrevious: boolean;
  previous: () => void;
  next: (cursor: string) => void;
  reset: () => void;
}

export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors[cursors.length - 1] ?? null,
    hasPrevious: cursors.length > 1,
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    next: (cursor) => setCursors((c) => [...c, cursor]),
    reset: () => setCursors([null]),
  };
}

export function Pager({ pages, nextCursor }: { pages: CursorPages; nextCursor: string | null }) {
  if (!pages.hasPrevious && !nextCursor) return null;
  return (
    <div class="pager">
      {pages.hasPrevious ? (
        <button type="button" class="btn" onClick={pages.previous}>
          Previous page
        </button>
      ) : null}
      {nextCursor ? (
        <button type="button" class="btn" onClick={() => pages.next(nextCursor)}>
          Next page
        </button>
      ) : null}
    </div>
  );
}
