// The own candle chart's symbol picker (issue 15): the watchlists' type-ahead over the whole
// symbol table, so a trader can chart any market (AAPL, SPY, SPX, CME_MINI:MES1!, Bitcoin), not
// only the 28 exchange cards. A pick, or Enter on a symbol the table resolves, charts its
// canonical id; Enter on a symbol the table does not know says so in the table's words.
import { useId, useState } from 'react';
import { resolveSymbol, unknownSymbolMessage } from '../../../shared/symbols.ts';
import { SymbolSearch } from '../../ui/SymbolSearch.tsx';

export function ChartSymbolPicker({
  label,
  onChart,
  className = '',
  keyShortcut,
}: {
  label: string;
  /** Charts a symbol, given the symbol table's canonical id (BTC-USD, AAPL, MES1!). */
  onChart: (symbolId: string) => void;
  className?: string;
  /** The page-wide key that focuses the picker (the dashboard's `/`). */
  keyShortcut?: string;
}) {
  const [text, setText] = useState('');
  const [unknown, setUnknown] = useState<string | null>(null);
  const unknownId = useId();

  function chart(symbolId: string) {
    setText('');
    setUnknown(null);
    onChart(symbolId);
  }

  return (
    <div className={className}>
      <SymbolSearch
        keyShortcut={keyShortcut}
        form="ticker"
        label={label}
        value={text}
        onChange={(value) => {
          setText(value);
          setUnknown(null);
        }}
        onPick={(_ticker, market) => chart(market.id)}
        onEnter={() => {
          const typed = text.trim();
          if (!typed) return;
          const market = resolveSymbol(typed);
          if (market) chart(market.id);
          else setUnknown(unknownSymbolMessage(typed));
        }}
        placeholder="AAPL, MES, Bitcoin..."
        describedBy={unknown ? unknownId : undefined}
        className="w-44 rounded border border-gray-700 bg-gray-800 px-2 py-1 text-xs text-white"
      />
      {unknown && (
        <p id={unknownId} role="alert" className="mt-1 max-w-xs text-xs text-amber-300">
          {unknown}
        </p>
      )}
    </div>
  );
}
