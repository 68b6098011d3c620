// The type-ahead of both watchlist inputs: an ARIA combobox (input + listbox) over
// GET /api/symbols/search. Typing opens suggestions (debounced); Up/Down move the active
// option, Enter or a click picks it, Escape closes the list. Enter with no active option is
// the input's own Enter (the watchlist's typed-symbol rules), so typing a full symbol works
// exactly as without the type-ahead.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { MarketSymbolView } from '../../shared/schemas/symbols.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { ASSET_CLASS_LABELS } from './assetClasses.ts';
import { searchSymbols } from '../api/symbols.ts';

const SEARCH_DEBOUNCE_MS = 150;

/** What a pick adds: the chart watchlist's EXCHANGE:SYMBOL or the alerts panel's plain ticker. */
export type SymbolForm = 'tradingView' | 'ticker';

function symbolInForm(symbol: MarketSymbolView, form: SymbolForm): string {
  return form === 'tradingView' ? symbol.tradingView : symbol.ticker;
}

function useDebounced(value: string, delay: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

export function SymbolSearch({
  value,
  onChange,
  onPick,
  onEnter,
  form,
  label,
  placeholder,
  className,
  autoFocus,
  describedBy,
  keyShortcut,
}: {
  value: string;
  onChange: (value: string) => void;
  /** A suggestion was chosen; it gets the symbol in `form`. */
  onPick: (symbol: string, market: MarketSymbolView) => void;
  /** Enter with no active suggestion; without it Enter does what the browser does (submits a form). */
  onEnter?: () => void;
  form: SymbolForm;
  label: string;
  placeholder?: string;
  className?: string;
  autoFocus?: boolean;
  describedBy?: string;
  /** A page-wide key that focuses this input, announced as aria-keyshortcuts (the chart's `/`). */
  keyShortcut?: string;
}) {
  const listboxId = useId();
  const [open, setOpen] = useState(false);
  // The active option belongs to one answer: new suggestions start with none active, so Enter
  // keeps meaning "add what I typed" until Up/Down chooses one.
  const [cursor, setCursor] = useState<{ list: MarketSymbolView[] | undefined; index: number }>({
    list: undefined,
    index: -1,
  });
  const q = useDebounced(value.trim(), SEARCH_DEBOUNCE_MS);
  const search = useQuery({
    queryKey: queryKeys.symbols.search(q),
    queryFn: ({ signal }) => searchSymbols(q, signal),
    enabled: open && q.length > 0,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  const options = open && value.trim() && search.data ? search.data : [];
  const expanded = options.length > 0;
  const optionId = (index: number) => `${listboxId}-option-${index}`;

  // Suggestions for an earlier text stay on screen while the new ones load (no flicker), but
  // none of them may be chosen then: Enter right after typing means what was typed, even when
  // the pointer rests on (and so highlights) an option of the earlier list.
  const fresh = q === value.trim() && !search.isPlaceholderData;
  const active = fresh && cursor.list === search.data ? cursor.index : -1;
  const setActive = (index: number) => setCursor({ list: search.data, index });

  function pick(market: MarketSymbolView) {
    setOpen(false);
    setActive(-1);
    onPick(symbolInForm(market, form), market);
  }

  return (
    <div className="relative">
      <input
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listboxId}
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        aria-describedby={describedBy}
        aria-keyshortcuts={keyShortcut}
        autoComplete="off"
        spellCheck={false}
        autoFocus={autoFocus}
        value={value}
        placeholder={placeholder}
        className={className}
        onChange={(event) => {
          onChange(event.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            if (!open) setOpen(true);
            else if (options.length > 0) setActive((active + 1) % options.length);
          } else if (event.key === 'ArrowUp') {
            event.preventDefault();
            if (options.length > 0) setActive(active <= 0 ? options.length - 1 : active - 1);
          } else if (event.key === 'Escape') {
            if (expanded) {
              event.preventDefault();
              event.stopPropagation();
            }
            setOpen(false);
            setActive(-1);
          } else if (event.key === 'Enter') {
            const chosen = active >= 0 ? options[active] : undefined;
            if (chosen) {
              event.preventDefault();
              pick(chosen);
            } else if (onEnter) {
              event.preventDefault();
              setOpen(false);
              onEnter();
            } else {
              setOpen(false);
            }
          }
        }}
      />
      <ul
        id={listboxId}
        role="listbox"
        aria-label="Symbol suggestions"
        hidden={!expanded}
        className="absolute left-0 top-full z-30 mt-1 max-h-72 w-72 max-w-[90vw] overflow-y-auto rounded border border-gray-700 bg-gray-900 py-1 shadow-lg"
      >
        {options.map((market, index) => (
          <li
            key={market.id}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            // Keep focus in the input so its blur does not close the list before the click lands.
            onMouseDown={(event) => event.preventDefault()}
            onMouseEnter={() => setActive(index)}
            onClick={() => pick(market)}
            className={`flex cursor-pointer items-baseline gap-2 px-2 py-1 text-xs ${index === active ? 'bg-indigo-700 text-white' : 'text-gray-200'}`}
          >
            <span className="shrink-0 font-semibold">{symbolInForm(market, form)}</span>
            <span className="min-w-0 flex-1 truncate text-gray-300">{market.name}</span>
            <span className="shrink-0 text-[10px] uppercase tracking-wide text-gray-400">
              {ASSET_CLASS_LABELS[market.assetClass]}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
