// The dashboard's Scanner panel (issue 36; on a phone, the Scanner tab): the presets as one-click
// scans, the form (timeframe and conditions, Run, Save as), the trader's saved scans, the
// results table with its row actions (the own chart, the chart watchlist, an alert rule from the
// scan's conditions, a setup study), and the setup study of the scan's conditions below it.
import { useState } from 'react';
import { DEFAULT_CHART_WATCHLIST } from '../../../shared/constants.ts';
import type { SavedScan, ScanCondition, ScanPreset, ScanRequest, ScanRow } from '../../../shared/schemas/scans.ts';
import { resolveSymbol, toTradingView } from '../../../shared/symbols.ts';
import { Panel } from '../../ui/Panel.tsx';
import { useNotify } from '../../ui/Notifications.tsx';
import { useRuleEditor } from '../rules/index.ts';
import { useSavedWatchlist } from '../watchlist/index.ts';
import { SavedScans } from './SavedScans.tsx';
import { emptyScanForm, formFromScan, type ScanFormState } from './scanForm.ts';
import { ScanForm } from './ScanForm.tsx';
import { useRunScan, useSavedScanActions, useScanPresets, useStudy } from './scanApi.ts';
import { ruleFromScan } from './scanRule.ts';
import { ScanResults } from './ScanResults.tsx';
import { StudyView, studyRequestOf, type StudyTarget } from './StudyView.tsx';

function Presets({ onPick }: { onPick: (preset: ScanPreset) => void }) {
  const presets = useScanPresets();
  if (presets.isPending) return <p className="text-xs text-gray-400">Loading the preset scans...</p>;
  if (presets.isError)
    return (
      <p role="alert" className="text-xs text-red-300">
        The preset scans could not be loaded: {presets.error.message}
      </p>
    );
  return (
    <div role="group" aria-label="Preset scans" className="flex flex-wrap gap-1.5" data-testid="scan-presets">
      {presets.data.map((preset) => (
        <button
          key={preset.id}
          type="button"
          title={preset.description}
          className="rounded-full border border-gray-600 px-2.5 py-1 text-xs text-gray-100 hover:border-indigo-400 hover:bg-indigo-950"
          onClick={() => onPick(preset)}
        >
          {preset.name}
        </button>
      ))}
    </div>
  );
}

export function ScannerPanel({ onOpenChart }: { onOpenChart: (symbolId: string) => void }) {
  const notify = useNotify();
  const ruleEditor = useRuleEditor();
  const watchlist = useSavedWatchlist('chart', DEFAULT_CHART_WATCHLIST, notify);
  // The form's contents when a preset or saved scan fills it: a new key remounts it with them.
  const [loaded, setLoaded] = useState<{ key: number; form: ScanFormState }>({ key: 0, form: emptyScanForm() });
  const scan = useRunScan();
  const savedActions = useSavedScanActions();
  const study = useStudy();
  const [studyTarget, setStudyTarget] = useState<StudyTarget | null>(null);
  // The conditions the shown results were found with: their value columns, the row actions'.
  const ran: ScanRequest | undefined = scan.variables;

  const load = (form: ScanFormState) => setLoaded((current) => ({ key: current.key + 1, form }));
  const run = (request: ScanRequest) => {
    setStudyTarget(null);
    study.reset();
    scan.mutate(request);
  };
  const pickPreset = (preset: ScanPreset) => {
    load(formFromScan(preset));
    run({ timeframe: preset.timeframe, conditions: preset.conditions, limit: 100 });
  };
  const loadSaved = (saved: SavedScan) => load(formFromScan(saved));
  const save = (name: string, request: ScanRequest) =>
    savedActions.save.mutate(
      { name, timeframe: request.timeframe, conditions: request.conditions },
      { onSuccess: (saved) => notify(`Saved the scan ${saved.name}`) },
    );

  function addToWatchlist(row: ScanRow) {
    const market = resolveSymbol(row.id);
    if (!market) return notify(`${row.ticker} cannot be added to the chart watchlist`);
    const symbol = toTradingView(market);
    if (watchlist.symbols.includes(symbol)) return notify(`${row.ticker} is already on the chart watchlist`);
    watchlist.save([...watchlist.symbols, symbol]);
    notify(`Added ${row.ticker} to the chart watchlist`);
  }

  function makeRule(row: ScanRow, conditions: ScanCondition[], timeframe: ScanRequest['timeframe']) {
    const { condition, leftOut } = ruleFromScan(conditions, timeframe);
    ruleEditor?.open({
      prefill: {
        symbol: row.ticker,
        timeframe,
        ...(condition ? { condition, name: `${row.ticker} from the scanner` } : {}),
      },
    });
    // A rule holds one condition: say which of the scan's it does not carry.
    if (leftOut.length > 0)
      notify(
        condition
          ? `The rule holds one condition; not carried: ${leftOut.join(', ')}. "Alert me when a symbol enters this scan" on a saved scan watches them all.`
          : `None of this scan's conditions has an alert rule counterpart; pick one in the form.`,
      );
  }

  function studyRow(row: ScanRow, request: ScanRequest) {
    const target: StudyTarget = {
      symbol: row.id,
      matches: scan.data?.rows.map((entry) => entry.id) ?? [row.id],
      timeframe: request.timeframe,
      conditions: request.conditions,
    };
    setStudyTarget(target);
    const made = studyRequestOf(target, 'symbol', '24', '0.1');
    if ('request' in made) study.mutate(made.request);
  }

  return (
    <Panel headingId="scanner-heading" title="Scanner" className="min-w-0" data-testid="scanner">
      <p className="mt-1 text-xs text-gray-300">
        Every market at once: the symbols where all of these conditions hold at the newest closed bar.
      </p>
      <div className="mt-3 grid min-w-0 gap-4 xl:grid-cols-[minmax(0,420px)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-3">
          <Presets onPick={pickPreset} />
          <ScanForm
            key={loaded.key}
            initial={loaded.form}
            onRun={run}
            running={scan.isPending}
            onSave={save}
            saving={savedActions.save.isPending}
            saveError={savedActions.save.isError ? savedActions.save.error.message : null}
          />
          <SavedScans onLoad={loadSaved} actions={savedActions} />
        </div>
        <div className="min-w-0">
          {scan.isPending ? (
            <p role="status" className="text-sm text-gray-300">
              Scanning every market...
            </p>
          ) : scan.isError ? (
            <p role="alert" className="text-sm text-red-300">
              The scan could not be run: {scan.error.message}
            </p>
          ) : scan.data && ran ? (
            <>
              <ScanResults
                result={scan.data}
                conditions={ran.conditions}
                actions={{
                  onOpenChart: (row) => onOpenChart(row.id),
                  onAddToWatchlist: addToWatchlist,
                  onMakeRule: ruleEditor ? (row) => makeRule(row, ran.conditions, ran.timeframe) : undefined,
                  onStudy: (row) => studyRow(row, ran),
                }}
              />
              {scan.data.rows.length > 0 && !studyTarget && (
                <button
                  type="button"
                  className="mt-2 rounded border border-indigo-500 px-3 py-1 text-xs text-indigo-200 hover:bg-indigo-950"
                  onClick={() =>
                    setStudyTarget({
                      symbol: null,
                      matches: scan.data.rows.map((row) => row.id),
                      timeframe: ran.timeframe,
                      conditions: ran.conditions,
                    })
                  }
                >
                  Study this setup on the matches
                </button>
              )}
            </>
          ) : (
            <p className="text-sm text-gray-400">Pick a preset or set conditions, then run the scan.</p>
          )}
          {studyTarget && (
            <StudyView
              // A new target (another row) starts a new form.
              key={`${studyTarget.symbol ?? '*'}-${studyTarget.timeframe}`}
              target={studyTarget}
              study={{ run: study.mutate, pending: study.isPending, data: study.data, error: study.error }}
              onClose={() => {
                setStudyTarget(null);
                study.reset();
              }}
            />
          )}
        </div>
      </div>
    </Panel>
  );
}
