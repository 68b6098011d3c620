// A sortable table column's header button (the watchlist table, the scanner's results): the
// column's label and an arrow for its direction; the header cell around it carries aria-sort.
import type { ReactNode } from 'react';

export function SortButton({
  label,
  sorted,
  onSort,
}: {
  label: ReactNode;
  sorted: 'ascending' | 'descending' | undefined;
  onSort: () => void;
}) {
  return (
    <button type="button" onClick={onSort} className="inline-flex items-center gap-0.5 hover:text-white">
      {label}
      <span aria-hidden="true" className="w-2">
        {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''}
      </span>
    </button>
  );
}
