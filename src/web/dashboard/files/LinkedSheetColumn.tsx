// My Stuff's third column: the trader's linked Google spreadsheet. A link field with Load,
// the saved link restored from the server, and the sheet names (POST /sheets/metadata, which
// also saves the link), with docs/SPEC.md's loading, empty and error texts.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FILE_TEXTS, parseGoogleSheetUrl, SHEET_URL_RULE } from '../../../shared/schemas/files.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { fetchLinkedSheet, fetchSheetNames, unlinkSheet } from './filesApi.ts';

export function LinkedSheetColumn({
  columnClass,
  headerClass,
  listClass,
}: {
  columnClass: string;
  headerClass: string;
  listClass: string;
}) {
  const queryClient = useQueryClient();
  const linked = useQuery({ queryKey: queryKeys.files.linkedSheet, queryFn: fetchLinkedSheet });
  const savedUrl = linked.data?.sheet_url ?? null;
  /** What the trader typed; null until they type, so the saved link shows. */
  const [draft, setDraft] = useState<string | null>(null);
  /** The link whose sheets are shown; null follows the saved link, '' shows none. */
  const [requested, setRequested] = useState<string | null>(null);
  const [rule, setRule] = useState<string | null>(null);
  const activeUrl = requested ?? savedUrl ?? '';
  const field = draft ?? savedUrl ?? '';

  const sheets = useQuery({
    queryKey: queryKeys.files.sheetNames(activeUrl),
    queryFn: async () => {
      const names = await fetchSheetNames(activeUrl);
      queryClient.setQueryData(queryKeys.files.linkedSheet, { sheet_url: activeUrl });
      return names;
    },
    enabled: activeUrl !== '',
    retry: false,
    staleTime: 5 * 60_000,
  });

  const unlink = useMutation({
    mutationFn: unlinkSheet,
    onSuccess: (result) => {
      queryClient.setQueryData(queryKeys.files.linkedSheet, result);
      setRequested('');
      setDraft('');
    },
  });

  function load() {
    const url = field.trim();
    if (!parseGoogleSheetUrl(url)) {
      setRule(SHEET_URL_RULE);
      return;
    }
    setRule(null);
    if (url === activeUrl) void sheets.refetch();
    else setRequested(url);
  }

  let body;
  if (activeUrl === '' || (linked.isPending && requested === null)) {
    body = linked.isPending ? (
      <p className="text-sm text-gray-400">{FILE_TEXTS.loadingSheetFiles}</p>
    ) : (
      <p className="text-sm text-gray-400">{FILE_TEXTS.noSheetFiles}</p>
    );
  } else if (sheets.isFetching && !sheets.data) {
    body = <p className="text-sm text-gray-400">{FILE_TEXTS.loadingSheetFiles}</p>;
  } else if (sheets.isError) {
    body = (
      <p role="alert" className="text-sm text-red-400">
        {sheets.error.message || FILE_TEXTS.sheetMetadataFailed}
      </p>
    );
  } else if (!sheets.data || sheets.data.length === 0) {
    body = <p className="text-sm text-gray-400">{FILE_TEXTS.noSheetFiles}</p>;
  } else {
    body = (
      <ul className="space-y-1.5" aria-label="Sheets of the linked spreadsheet">
        {sheets.data.map((name, index) => (
          <li
            key={`${name}-${index}`}
            className="flex items-center gap-2 rounded border border-gray-800 bg-gray-800/40 px-2 py-1.5 text-sm text-white"
            data-testid="sheet-name"
          >
            <svg
              aria-hidden
              viewBox="0 0 24 24"
              className="h-4 w-4 shrink-0 text-green-400"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
            >
              <rect x="4" y="3" width="16" height="18" rx="2" />
              <path d="M4 9h16M4 15h16M10 3v18" />
            </svg>
            <span className="truncate" title={name}>
              {name}
            </span>
          </li>
        ))}
      </ul>
    );
  }

  return (
    <section className={columnClass} aria-label={FILE_TEXTS.sheetFiles}>
      <div className={headerClass}>
        <h3 className="text-sm font-semibold text-gray-200">{FILE_TEXTS.sheetFiles}</h3>
        {activeUrl !== '' && (
          <a
            href={activeUrl}
            target="_blank"
            rel="noopener noreferrer"
            className="text-xs text-indigo-300 hover:text-indigo-200"
          >
            Open sheet
          </a>
        )}
      </div>
      <form
        noValidate
        className="mt-2 flex gap-1"
        onSubmit={(event) => {
          event.preventDefault();
          load();
        }}
      >
        <input
          type="url"
          inputMode="url"
          aria-label="Google Sheets link"
          placeholder="https://docs.google.com/spreadsheets/d/..."
          value={field}
          onChange={(event) => {
            setDraft(event.target.value);
            setRule(null);
          }}
          className="min-w-0 flex-1 rounded border border-gray-700 bg-gray-800 px-2 py-1 text-xs text-white placeholder:text-gray-500"
        />
        <button
          type="submit"
          className="rounded bg-indigo-600 px-2 py-1 text-xs font-semibold text-white hover:bg-indigo-500"
        >
          Load
        </button>
        {activeUrl !== '' && (
          <button
            type="button"
            aria-label="Unlink spreadsheet"
            title="Unlink spreadsheet"
            disabled={unlink.isPending}
            onClick={() => unlink.mutate()}
            className="rounded border border-gray-700 px-2 py-1 text-xs text-gray-300 hover:text-white"
          >
            ×
          </button>
        )}
      </form>
      {rule && (
        <p role="alert" className="mt-1 text-xs text-red-400">
          {rule}
        </p>
      )}
      <div className={listClass}>{body}</div>
    </section>
  );
}
