// docs/SPEC.md Prompt Catalog: Category, Prompt (disabled until a category is chosen), Timeframe
// and Symbol (both hidden for 'Options & Derivatives Analysis'), and 'Generate Analysis'
// ('Processing...' while busy). The prompt goes to POST /external-api/prompt with the input
// bar's attached file, and the prompt and its answer are appended to the chat. After success
// the selections reset and the attachment is removed; a failure logs 'API error: {status}' and
// shows 'An error occurred while processing the prompt'. The chat wires it in (AiSection):
// the catalogue knows nothing of the chat beyond the two props it is given. The Symbol select
// offers every market of the symbol table (issue 15), grouped by asset class, by canonical id.
import { Panel } from '../../ui/Panel.tsx';
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { TIMEFRAMES } from '../../../shared/constants.ts';
import { OPTIONS_CATEGORY, PROMPT_ERROR_MESSAGE, PROMPT_SELECT_MESSAGE } from '../../../shared/schemas/chat.ts';
import { promptsResponse } from '../../../shared/schemas/prompts.ts';
import { ApiError, apiFetch } from '../../api/http.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { SYMBOL_TABLE } from '../../../shared/symbols.ts';
import { ASSET_CLASS_GROUP_LABELS, ASSET_CLASSES } from '../../ui/assetClasses.ts';
import { categoriesOf, fillPrompt, type CatalogPrompt } from './promptText.ts';

const DEFAULT_TIMEFRAME = '1h';
const DEFAULT_SYMBOL = 'BTC-USD';

/** The Symbol select's groups: every asset class with its markets, in table order. */
const SYMBOL_GROUPS = ASSET_CLASSES.map((assetClass) => ({
  assetClass,
  label: ASSET_CLASS_GROUP_LABELS[assetClass],
  symbols: SYMBOL_TABLE.filter((symbol) => symbol.assetClass === assetClass),
})).filter((group) => group.symbols.length > 0);

async function fetchPrompts(): Promise<CatalogPrompt[]> {
  try {
    return (await apiFetch('/prompts', promptsResponse)).prompts;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status < 400) throw error;
    // docs/SPEC.md: 'API error: {status}' is logged and the catalogue stays empty.
    console.error(`API error: ${error.status}`);
    return [];
  }
}

export interface PromptCatalogProps {
  className?: string;
  /** Sends the filled-in prompt (with the attachment) and shows it and its answer; throws on failure. */
  runPrompt: (prompt: string) => Promise<void>;
  /** The file attached in the input bar, sent with the prompt. */
  attachment: File | null;
}

/** A label beside (not around) its select, so the select's accessible name is the label alone. */
function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="text-xs text-gray-400">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

export function PromptCatalog({ className = '', runPrompt, attachment }: PromptCatalogProps) {
  const id = useId();
  const prompts = useQuery({ queryKey: queryKeys.prompts.all, queryFn: fetchPrompts, staleTime: Infinity });
  const [category, setCategory] = useState('');
  const [promptId, setPromptId] = useState('');
  const [timeframe, setTimeframe] = useState(DEFAULT_TIMEFRAME);
  const [symbol, setSymbol] = useState(DEFAULT_SYMBOL);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);

  const all = prompts.data ?? [];
  const inCategory = all.filter((entry) => entry.category === category);
  const chosen = inCategory.find((entry) => entry.id === promptId);
  const optionsCategory = category === OPTIONS_CATEGORY;
  const ready = Boolean(category && chosen);
  // What fills {symbol} and {timeframe}: in the text sent and in the Prompt options' labels.
  const selections = { symbol: symbol || DEFAULT_SYMBOL, timeframe: timeframe || DEFAULT_TIMEFRAME };
  const text = chosen ? fillPrompt(chosen.prompt, selections) : '';

  async function generate() {
    if (!ready || busy) return;
    setBusy(true);
    setFailed(false);
    try {
      await runPrompt(text);
      setCategory('');
      setPromptId('');
      setTimeframe(DEFAULT_TIMEFRAME);
      setSymbol(DEFAULT_SYMBOL);
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      setFailed(true);
    } finally {
      setBusy(false);
    }
  }

  const field =
    'mt-1 w-full rounded border border-gray-700 bg-gray-800 px-2 py-1.5 text-sm text-white disabled:opacity-50';
  return (
    <Panel
      headingId="prompt-catalog-heading"
      title="Prompt Catalog"
      className={`flex min-h-0 flex-col ${className}`}
      data-tour="prompt-catalog"
    >
      <form
        className="mt-2 flex min-h-0 flex-col gap-3 overflow-y-auto"
        onSubmit={(event) => {
          event.preventDefault();
          void generate();
        }}
      >
        <Field id={`${id}-category`} label="Category">
          <select
            id={`${id}-category`}
            className={field}
            value={category}
            onChange={(event) => {
              const next = event.target.value;
              setCategory(next);
              setPromptId('');
              setFailed(false);
              if (next === OPTIONS_CATEGORY) {
                setTimeframe('');
                setSymbol('');
              } else {
                setTimeframe((current) => current || DEFAULT_TIMEFRAME);
                setSymbol((current) => current || DEFAULT_SYMBOL);
              }
            }}
          >
            <option value="">Select a category</option>
            {categoriesOf(all).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field id={`${id}-prompt`} label="Prompt">
          <select
            id={`${id}-prompt`}
            className={field}
            value={promptId}
            disabled={!category}
            onChange={(event) => setPromptId(event.target.value)}
          >
            <option value="">Select a prompt</option>
            {inCategory.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {fillPrompt(entry.prompt, selections)}
              </option>
            ))}
          </select>
        </Field>
        {optionsCategory ? null : (
          <div className="grid grid-cols-2 gap-3">
            <Field id={`${id}-timeframe`} label="Timeframe">
              <select
                id={`${id}-timeframe`}
                className={field}
                value={timeframe}
                onChange={(event) => setTimeframe(event.target.value)}
              >
                {TIMEFRAMES.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
            </Field>
            <Field id={`${id}-symbol`} label="Symbol">
              <select
                id={`${id}-symbol`}
                className={field}
                value={symbol}
                onChange={(event) => setSymbol(event.target.value)}
              >
                {SYMBOL_GROUPS.map((group) => (
                  <optgroup key={group.assetClass} label={group.label}>
                    {group.symbols.map((entry) => (
                      <option key={entry.id} value={entry.id}>
                        {`${entry.id} · ${entry.name}`}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </Field>
          </div>
        )}
        {text ? (
          <p
            className="rounded border border-gray-800 bg-gray-800/50 p-2 text-xs leading-relaxed text-gray-300"
            data-testid="prompt-preview"
          >
            {text}
          </p>
        ) : null}
        {attachment ? (
          <p className="text-xs text-indigo-200" data-testid="prompt-attachment">
            Sent with the attached file: {attachment.name}
          </p>
        ) : optionsCategory ? (
          <p className="text-xs text-gray-400">
            Options prompts work on an option chain: attach it with the paperclip button below.
          </p>
        ) : null}
        <div>
          <button
            type="submit"
            disabled={busy || !ready}
            className="w-full rounded bg-indigo-600 py-2 text-sm font-semibold text-white hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-50"
          >
            {busy ? 'Processing...' : 'Generate Analysis'}
          </button>
          {!ready ? <p className="mt-2 text-xs text-gray-400">{PROMPT_SELECT_MESSAGE}</p> : null}
          {failed ? (
            <p role="alert" className="mt-2 text-sm text-red-400">
              {PROMPT_ERROR_MESSAGE}
            </p>
          ) : null}
        </div>
      </form>
    </Panel>
  );
}
