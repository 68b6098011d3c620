// @vitest-environment jsdom
// The alert rules UI (issue 16) over a stubbed fetch and EventSource: the form gives the shared
// schema's errors before anything is sent, shows each condition kind's own fields, sends a valid
// rule as the API's RuleInput and shows the server's refusal; picking Push asks the browser and,
// when notifications are blocked, says so and leaves Push unticked; the panel shows the cap,
// pauses and deletes (after a confirm); "Load more" reads the next page of the rules and of the
// Triggered list; a `rule` event of the tab's live connection becomes a toast and the first row of the
// Triggered list.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ruleInput, type AlertRule, type RuleFiring } from '../../../shared/schemas/alertRules.ts';
import { unknownSymbolMessage } from '../../../shared/symbols.ts';
import { requestedUrl } from '../../api/testFetch.ts';
import { withClient } from '../../ui/testProviders.tsx';
import { FakeEventSource, withLive } from '../../live/testLive.tsx';
import { AlertRulesPanel } from './AlertRulesPanel.tsx';
import { AlertRulesProvider } from './AlertRulesProvider.tsx';
import { PUSH_BLOCKED } from './pushSubscription.ts';
import { emptyForm, formFromRule, toRuleInput, validateRuleForm } from './ruleForm.ts';
import { RuleFormDialog } from './RuleFormDialog.tsx';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** GET /api/alert-rules's answer: one page of rules with the caps. */
const rulePage = (rules: AlertRule[], nextCursor: string | null = null) => ({
  rules,
  nextCursor,
  activeCount: rules.filter((rule) => rule.status === 'active').length,
  maxActive: 50,
  totalCount: rules.length,
  maxTotal: 500,
});

const RULE: AlertRule = {
  id: 7,
  name: 'BTC crosses above 50,000',
  symbol: 'BTC-USD',
  ticker: 'BTC',
  timeframe: '1h',
  condition: { kind: 'price_cross', direction: 'above', level: 50_000 },
  trigger: 'once_per_bar',
  expiresAt: null,
  message: null,
  channels: ['in_app', 'email'],
  webhookUrl: null,
  status: 'active',
  description: 'BTC crosses above 50,000',
  triggerCount: 0,
  lastTriggeredAt: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

const FIRING: RuleFiring = {
  id: 31,
  ruleId: 7,
  ruleName: 'BTC crosses above 50,000',
  symbol: 'BTC-USD',
  ticker: 'BTC',
  timeframe: '1h',
  price: 50_123.45,
  message: 'BTC crossed 50123.45',
  barTime: '2026-11-25T11:00:00.000Z',
  firedAt: '2026-11-25T11:00:01.000Z',
  source: 'demo',
};

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** A fetch answering the alert-rule API; `answers` overrides one "METHOD /path". */
function stubServer(answers: Record<string, (url: URL) => Response> = {}) {
  const calls: Call[] = [];
  let rules = [RULE];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = requestedUrl(input);
      const method = init.method ?? 'GET';
      const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      calls.push({ method, path: url.pathname, body });
      const override = answers[`${method} ${url.pathname}`];
      if (override) return override(url);
      if (method === 'GET' && url.pathname === '/api/alert-rules') return json(200, rulePage(rules));
      if (method === 'GET' && url.pathname === '/api/alert-rules/triggered')
        return json(200, { firings: [], nextCursor: null });
      if (method === 'GET' && url.pathname === '/api/alert-rules/deliveries')
        return json(200, { deliveries: [], nextCursor: null });
      if (method === 'POST' && url.pathname === '/api/alert-rules') return json(201, { ...RULE, id: 8 });
      if (method === 'PATCH' && url.pathname === '/api/alert-rules/7') {
        rules = rules.map((rule) => ({ ...rule, status: (body as { status: AlertRule['status'] }).status }));
        return json(200, rules[0]);
      }
      if (method === 'DELETE' && url.pathname === '/api/alert-rules/7') {
        rules = [];
        return new Response(null, { status: 204 });
      }
      return json(404, { error: 'not stubbed' });
    }),
  );
  return calls;
}

beforeEach(() => {
  FakeEventSource.reset();
  vi.stubGlobal('EventSource', FakeEventSource);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderForm(props: Partial<Parameters<typeof RuleFormDialog>[0]> = {}) {
  const onClose = vi.fn();
  render(withClient(<RuleFormDialog onClose={onClose} {...props} />));
  return { onClose, dialog: screen.getByRole('dialog', { name: /alert rule/ }) };
}

const submit = (dialog: HTMLElement) =>
  fireEvent.click(within(dialog).getByRole('button', { name: /Create alert|Save changes/ }));

describe('the rule form', () => {
  it("shows the shared schema's errors beside their fields and sends nothing", async () => {
    const calls = stubServer();
    const { dialog } = renderForm();
    submit(dialog);
    expect(await within(dialog).findByText(unknownSymbolMessage(''))).toBeTruthy();
    expect(within(dialog).getByText('level must be a number')).toBeTruthy();
    expect(within(dialog).getByLabelText('Price level').getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByRole('alert').textContent).toBe('Please correct the fields marked above.');
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);

    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Symbol' }), { target: { value: 'NOPE:XYZ' } });
    fireEvent.change(within(dialog).getByLabelText('Price level'), { target: { value: '-5' } });
    submit(dialog);
    expect(await within(dialog).findByText(unknownSymbolMessage('NOPE:XYZ'))).toBeTruthy();
    expect(within(dialog).getByText('level must be above 0')).toBeTruthy();
  });

  it("shows each condition kind's own fields and checks them with the schema's rules", async () => {
    stubServer();
    const { dialog } = renderForm({ prefill: { symbol: 'BTC', level: 100 } });
    const kind = within(dialog).getByLabelText('Condition');
    expect(within(dialog).getByLabelText('Price level')).toHaveProperty('value', '100');

    fireEvent.change(kind, { target: { value: 'ema_cross' } });
    expect(within(dialog).queryByLabelText('Price level')).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Fast EMA period'), { target: { value: '21' } });
    expect(within(dialog).getByLabelText('Slow EMA period')).toHaveProperty('value', '21');
    submit(dialog);
    expect(await within(dialog).findByText('fast and slow must differ')).toBeTruthy();

    fireEvent.change(kind, { target: { value: 'channel' } });
    fireEvent.change(within(dialog).getByLabelText('Lower bound'), { target: { value: '200' } });
    fireEvent.change(within(dialog).getByLabelText('Upper bound'), { target: { value: '100' } });
    submit(dialog);
    expect(await within(dialog).findByText('lower must be below upper')).toBeTruthy();

    fireEvent.change(kind, { target: { value: 'builtin' } });
    expect(within(dialog).getByLabelText('Built-in alert')).toHaveProperty('value', 'BreakoutAlertGenerator');
    fireEvent.change(kind, { target: { value: 'watos_odds' } });
    fireEvent.change(within(dialog).getByLabelText('At least (%)'), { target: { value: '40' } });
    submit(dialog);
    expect(await within(dialog).findByText('threshold must be between 50 and 99')).toBeTruthy();

    // Back to the first kind: what was typed there is still there.
    fireEvent.change(kind, { target: { value: 'price_cross' } });
    expect(within(dialog).getByLabelText('Price level')).toHaveProperty('value', '100');
  });

  it("offers Once per bar close; the trigger follows the kind's default until the trader picks one", () => {
    stubServer();
    const { dialog } = renderForm({ prefill: { symbol: 'BTC', level: 100 } });
    const kind = within(dialog).getByLabelText('Condition');
    const trigger = within(dialog).getByLabelText('Trigger');
    expect(
      within(trigger)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Only once', 'Once per bar', 'Once per bar close', 'Every time']);
    expect(trigger).toHaveProperty('value', 'once_per_bar');
    // An indicator is evaluated on closed bars: its default is the bar close.
    fireEvent.change(kind, { target: { value: 'rsi' } });
    expect(trigger).toHaveProperty('value', 'once_per_bar_close');
    fireEvent.change(kind, { target: { value: 'channel' } });
    expect(trigger).toHaveProperty('value', 'once_per_bar');
    // Picked by the trader: kept whatever the kind.
    fireEvent.change(trigger, { target: { value: 'every_time' } });
    fireEvent.change(kind, { target: { value: 'ema_cross' } });
    expect(trigger).toHaveProperty('value', 'every_time');
  });

  it('refuses a webhook rule without a URL and an unknown message placeholder', async () => {
    stubServer({ 'GET /api/alert-rules/webhook': () => json(200, { secret: 'whsec_1', header: 'X-Watos-Signature' }) });
    const { dialog } = renderForm({ prefill: { symbol: 'BTC', level: 100 } });
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Webhook' }));
    expect(await within(dialog).findByDisplayValue('whsec_1')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Message (optional)'), { target: { value: 'Hi {{nope}}' } });
    submit(dialog);
    expect(await within(dialog).findByText('A webhook rule needs a webhook URL')).toBeTruthy();
    expect(within(dialog).getByText(/^Unknown placeholder \{\{nope\}\}/)).toBeTruthy();
  });

  it('sends a valid rule as the RuleInput the server parses, then closes', async () => {
    const calls = stubServer();
    const { dialog, onClose } = renderForm({ prefill: { symbol: 'BTC', level: 50_000 } });
    fireEvent.change(within(dialog).getByLabelText('Trigger'), { target: { value: 'once' } });
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'E-mail' }));
    expect(within(dialog).getByTestId('rule-preview').textContent).toBe('Alert when BTC crosses above 50,000 (1h)');
    submit(dialog);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const post = calls.find((call) => call.method === 'POST');
    expect(post?.path).toBe('/api/alert-rules');
    expect(post?.body).toEqual({
      symbol: 'BTC',
      timeframe: '1h',
      trigger: 'once',
      expiresAt: null,
      channels: ['in_app', 'email'],
      webhookUrl: null,
      condition: { kind: 'price_cross', direction: 'above', level: 50_000 },
    });
    expect(ruleInput.safeParse(post?.body).success).toBe(true);
  });

  it("shows the server's refusal (the active-rule cap) and stays open", async () => {
    stubServer({
      'POST /api/alert-rules': () => json(409, { error: 'You have 50 active alert rules, the most allowed' }),
    });
    const { dialog, onClose } = renderForm({ prefill: { symbol: 'ETH', level: 3000 } });
    submit(dialog);
    expect(await within(dialog).findByText('You have 50 active alert rules, the most allowed')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('edits a stored rule with PUT, starting from its values', async () => {
    const calls = stubServer({ 'PUT /api/alert-rules/7': () => json(200, RULE) });
    const { dialog } = renderForm({ rule: RULE });
    expect(within(dialog).getByRole('combobox', { name: 'Symbol' })).toHaveProperty('value', 'BTC-USD');
    expect(within(dialog).getByLabelText('Price level')).toHaveProperty('value', '50000');
    expect(within(dialog).getByRole('checkbox', { name: 'E-mail' })).toHaveProperty('checked', true);
    submit(dialog);
    await waitFor(() => expect(calls.some((call) => call.method === 'PUT')).toBe(true));
    expect(calls.find((call) => call.method === 'PUT')?.body).toMatchObject({
      symbol: 'BTC-USD',
      channels: ['in_app', 'email'],
      condition: RULE.condition,
    });
  });

  it('asks for notification permission only when Push is ticked, and says plainly when it is blocked', async () => {
    stubServer();
    const requestPermission = vi.fn(async () => 'denied');
    vi.stubGlobal('Notification', { permission: 'default', requestPermission });
    vi.stubGlobal('PushManager', class {});
    const register = vi.fn();
    Object.defineProperty(navigator, 'serviceWorker', { value: { register }, configurable: true });
    try {
      const { dialog } = renderForm({ prefill: { symbol: 'BTC', level: 100 } });
      expect(requestPermission).not.toHaveBeenCalled();
      const push = within(dialog).getByRole('checkbox', { name: 'Push' });
      fireEvent.click(push);
      expect(await within(dialog).findByText(PUSH_BLOCKED)).toBeTruthy();
      expect(requestPermission).toHaveBeenCalledTimes(1);
      expect(register).not.toHaveBeenCalled();
      expect(push).toHaveProperty('checked', false);
    } finally {
      Reflect.deleteProperty(navigator, 'serviceWorker');
    }
  });

  it('ticks Push once the browser is subscribed', async () => {
    stubServer();
    const pushEnabler = vi.fn(async () => ({ ok: true as const }));
    const { dialog } = renderForm({ prefill: { symbol: 'BTC', level: 100 }, pushEnabler });
    const push = within(dialog).getByRole('checkbox', { name: 'Push' });
    fireEvent.click(push);
    await waitFor(() => expect(push).toHaveProperty('checked', true));
    expect(pushEnabler).toHaveBeenCalledTimes(1);
  });
});

describe('the form state', () => {
  it('round-trips a stored rule and leaves empty optional fields out', () => {
    const input = toRuleInput(
      formFromRule({ ...RULE, expiresAt: '2026-12-01T10:00:00.000Z', message: 'Go {{ticker}}' }),
    );
    expect(input).toMatchObject({
      symbol: 'BTC-USD',
      message: 'Go {{ticker}}',
      expiresAt: '2026-12-01T10:00:00.000Z',
      condition: RULE.condition,
    });
    expect('name' in toRuleInput(emptyForm())).toBe(false);
    const checked = validateRuleForm({ ...emptyForm({ symbol: 'SOL', level: 2 }), kind: 'rsi' });
    expect(checked).toEqual({
      input: expect.objectContaining({ condition: { kind: 'rsi', direction: 'above', level: 70, period: 14 } }),
    });
  });
});

/** The rules panel inside its provider and the tab's live connection, as the dashboard mounts it. */
function renderPanel() {
  render(
    withClient(
      withLive(
        <AlertRulesProvider>
          <AlertRulesPanel />
        </AlertRulesProvider>,
      ),
    ),
  );
}

describe('the alert rules panel', () => {
  it('shows the rules with the cap, pauses, and deletes after a confirm', async () => {
    const calls = stubServer();
    renderPanel();
    const panel = screen.getByTestId('alert-rules-panel');
    expect(await within(panel).findByText('1 of 50 active')).toBeTruthy();
    const row = within(panel).getByRole('listitem', { name: RULE.description });
    expect(within(row).getByText('In app, E-mail')).toBeTruthy();
    expect(within(row).getByText('never')).toBeTruthy();

    fireEvent.click(within(row).getByRole('button', { name: `Pause ${RULE.description}` }));
    expect(await within(panel).findByText('0 of 50 active')).toBeTruthy();
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ status: 'paused' });
    expect(within(row).getByRole('button', { name: `Resume ${RULE.description}` })).toBeTruthy();

    fireEvent.click(within(row).getByRole('button', { name: `Delete ${RULE.description}` }));
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    fireEvent.click(within(row).getByRole('button', { name: 'Yes, delete' }));
    expect(await within(panel).findByText(/No alert rules yet/)).toBeTruthy();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/alert-rules/7']);

    fireEvent.click(within(panel).getByRole('button', { name: 'New alert' }));
    expect(await screen.findByRole('dialog', { name: 'New alert rule' })).toBeTruthy();
  });

  it('reads the next page of the rules and of the Triggered list with Load more', async () => {
    const older = { ...RULE, id: 3, description: 'ETH crosses above 3,000', status: 'paused' as const };
    // Each next page is answered only to the cursor of the page before.
    stubServer({
      'GET /api/alert-rules': (url) =>
        json(200, url.searchParams.get('cursor') === '7' ? rulePage([older]) : rulePage([RULE], '7')),
      'GET /api/alert-rules/triggered': (url) =>
        json(
          200,
          url.searchParams.get('cursor') === '31'
            ? { firings: [{ ...FIRING, id: 30, message: 'BTC crossed 50001' }], nextCursor: null }
            : { firings: [FIRING], nextCursor: '31' },
        ),
    });
    renderPanel();
    const panel = screen.getByTestId('alert-rules-panel');
    await within(panel).findByRole('listitem', { name: RULE.description });
    expect(within(panel).queryByRole('listitem', { name: older.description })).toBeNull();
    fireEvent.click(within(panel).getByRole('button', { name: 'Load more rules' }));
    expect(await within(panel).findByRole('listitem', { name: older.description })).toBeTruthy();
    expect(within(panel).getByRole('listitem', { name: RULE.description })).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Load more rules' })).toBeNull();

    fireEvent.click(within(panel).getByRole('tab', { name: 'Triggered' }));
    expect(await within(panel).findByText(FIRING.message)).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: 'Load older alerts' }));
    expect(await within(panel).findByText('BTC crossed 50001')).toBeTruthy();
    expect(within(panel).getAllByTestId('firing-row')).toHaveLength(2);
    expect(within(panel).queryByRole('button', { name: 'Load older alerts' })).toBeNull();
  });

  it('turns a live firing into a toast and the first row of the Triggered list', async () => {
    stubServer();
    renderPanel();
    const panel = screen.getByTestId('alert-rules-panel');
    fireEvent.click(within(panel).getByRole('tab', { name: 'Triggered' }));
    expect(await within(panel).findByText('No alert has triggered yet.')).toBeTruthy();
    // The firings come on the tab's one live connection.
    await waitFor(() => expect(FakeEventSource.opened.map((stream) => stream.url)).toEqual(['/api/live']));

    act(() => FakeEventSource.latest().emit('rule', FIRING));
    const toast = await screen.findByTestId('rule-toast');
    expect(toast.closest('[role="status"]')).toBeTruthy();
    expect(within(toast).getByText('BTC alert: BTC crosses above 50,000')).toBeTruthy();
    const row = await within(panel).findByTestId('firing-row');
    expect(within(row).getByText(FIRING.message)).toBeTruthy();
    expect(within(row).getByText('Demo data')).toBeTruthy();
  });
});
