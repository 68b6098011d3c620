// A file's first rows (GET /files/{id}/preview) in a modal: one tab a worksheet, the header
// row, and how many rows the file holds in all. Escape or the close button ends it.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { FileEntry } from '../../../shared/schemas/files.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { fetchPreview } from './filesApi.ts';

export function FilePreviewDialog({ file, onClose }: { file: FileEntry; onClose: () => void }) {
  const preview = useQuery({
    queryKey: queryKeys.files.preview(file.id),
    queryFn: () => fetchPreview(file.id),
    retry: false,
    staleTime: 60_000,
  });
  const [tab, setTab] = useState(0);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const tables = preview.data?.tables ?? [];
  const table = tables[Math.min(tab, Math.max(0, tables.length - 1))];

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-black/70 p-4" onClick={onClose}>
      <div
        role="dialog"
        aria-modal="true"
        aria-label={`Preview of ${file.original_filename}`}
        className="flex max-h-[85vh] w-full max-w-4xl flex-col rounded-lg border border-gray-700 bg-gray-900 p-4 shadow-2xl"
        onClick={(event) => event.stopPropagation()}
      >
        <div className="flex items-center gap-3">
          <h3 className="min-w-0 flex-1 truncate text-base font-semibold text-white" title={file.original_filename}>
            {file.original_filename}
          </h3>
          <button
            ref={closeButton}
            type="button"
            aria-label="Close preview"
            className="rounded px-2 text-xl leading-none text-gray-400 hover:text-white"
            onClick={onClose}
          >
            ×
          </button>
        </div>
        {preview.isPending && <p className="mt-3 text-sm text-gray-400">Loading preview...</p>}
        {preview.isError && (
          <p role="alert" className="mt-3 text-sm text-red-400">
            {preview.error.message}
          </p>
        )}
        {tables.length > 1 && (
          <div role="tablist" aria-label="Worksheets" className="mt-3 flex flex-wrap gap-1">
            {tables.map((entry, index) => (
              <button
                key={`${entry.sheet}-${index}`}
                type="button"
                role="tab"
                aria-selected={index === tab}
                onClick={() => setTab(index)}
                className={`rounded px-2 py-0.5 text-xs ${index === tab ? 'bg-indigo-600 text-white' : 'bg-gray-800 text-gray-300 hover:text-white'}`}
              >
                {entry.sheet}
              </button>
            ))}
          </div>
        )}
        {table && (
          <>
            <div className="mt-3 min-h-0 flex-1 overflow-auto rounded border border-gray-800">
              <table className="min-w-full text-left text-xs">
                <thead className="sticky top-0 bg-gray-800 text-gray-200">
                  <tr>
                    {table.columns.map((column, index) => (
                      <th key={index} scope="col" className="whitespace-nowrap px-2 py-1 font-semibold">
                        {column}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody className="text-gray-300">
                  {table.rows.map((row, rowIndex) => (
                    <tr key={rowIndex} className="border-t border-gray-800">
                      {row.map((cell, cellIndex) => (
                        <td key={cellIndex} className="whitespace-nowrap px-2 py-1">
                          {cell}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p className="mt-2 text-xs text-gray-400">
              {table.truncated
                ? `First ${table.rows.length} of ${table.totalRows} rows`
                : `${table.totalRows} ${table.totalRows === 1 ? 'row' : 'rows'}`}
            </p>
          </>
        )}
      </div>
    </div>
  );
}
