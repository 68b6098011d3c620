// AI assistant journeys on the built-in analyst and the demo feed: a message streams in after
// the typing dots with the WATOS grid for ETH and survives a reload; an attached option chain
// is sent with its name in brackets and analysed; a failed send keeps the text and the file;
// the Prompt Catalog flow, including the options category with the attached chain.
import type { Page } from '@playwright/test';
import { SYMBOL_TABLE } from '../src/shared/symbols.ts';
import { expect, test } from './fixtures.ts';

const PLACEHOLDER = "Ask about a symbol, request probability forecasts, or summarize today's alerts...";
const CHAIN = 'src/server/ai/fixtures/option-chain.csv';
// The first answer for an asset replays its demo history while the alert engine backfills.
const ANSWER_TIMEOUT = 45_000;

const chatPanel = (page: Page) => page.getByRole('region', { name: 'AI Assistant' });
const catalog = (page: Page) => page.getByRole('region', { name: 'Prompt Catalog' });

/** Holds the request back a moment so the waiting state is visible, then lets it through. */
async function slowDown(page: Page, url: string, ms = 1500) {
  await page.route(url, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue();
  });
}

test('a message streams in after the typing dots, with the WATOS grid for ETH, and is restored on reload', async ({
  subscribedPage: page,
}) => {
  const chat = chatPanel(page);
  await expect(
    chat.getByText(
      'Hello! How can I help you today? I can provide WATOS (What Are The Odds?) for any symbol. Just ask about BTC, ETH, AAPL, or any other ticker',
    ),
  ).toBeVisible();
  await expect(chat.getByText('WATOS Grid Trading Signals')).toBeVisible();
  await expect(chat.getByTestId('assistant-avatar').first()).toBeVisible();

  const input = page.getByPlaceholder(PLACEHOLDER);
  // Trimmed empty text sends nothing.
  await input.fill('   ');
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(chat.getByTestId('user-message')).toHaveCount(0);

  await slowDown(page, '**/api/chat');
  await input.fill('What are the odds for ETH?');
  await input.press('Enter');
  await expect(chat.getByTestId('user-message')).toHaveText(['What are the odds for ETH?']);
  await expect(chat.getByTestId('user-avatar')).toHaveCount(1);
  await expect(chat.getByTestId('typing-dots')).toBeVisible();
  await expect(input).toHaveValue('What are the odds for ETH?');

  const answer = chat.getByTestId('assistant-message').last();
  await expect(answer.getByRole('heading', { name: 'ETH-USD: What Are The Odds? (WATOS, 1h)' })).toBeVisible({
    timeout: ANSWER_TIMEOUT,
  });
  await expect(chat.getByTestId('typing-dots')).toHaveCount(0);
  await expect(answer).toContainText('Demo data:');
  await expect(answer).toContainText('Nothing here is financial advice.');
  await expect(answer.getByRole('table')).toContainText('Volatility Expansion');
  await expect(input).toHaveValue('');

  // The grid under the answer shows the signals engine's six tiles for ETH, coloured by strength.
  const grid = answer.getByTestId('watos-grid');
  await expect(grid.getByRole('heading', { name: 'WATOS Grid: ETH' })).toBeVisible();
  await expect(grid.getByText('What Are The Odds?', { exact: true })).toBeVisible();
  await expect(grid.getByTestId('watos-tile')).toHaveCount(6);
  await expect(grid.getByText(/^Last updated: \d/)).toBeVisible();
  const card = (await (await page.request.get('/api/watos/ETH')).json()) as {
    signals: Array<{ name: string; strength: string }>;
  };
  const tiles = grid.getByTestId('watos-tile');
  for (const [index, signal] of card.signals.entries()) {
    await expect(tiles.nth(index)).toContainText(signal.name);
    await expect(tiles.nth(index)).toHaveAttribute('data-strength', signal.strength);
    await expect(tiles.nth(index)).toHaveClass(
      new RegExp({ low: 'border-yellow', medium: 'border-blue', high: 'border-green' }[signal.strength]!),
    );
  }

  await page.reload();
  await expect(chatPanel(page).getByTestId('user-message')).toHaveText(['What are the odds for ETH?']);
  await expect(chatPanel(page).getByRole('heading', { name: 'ETH-USD: What Are The Odds? (WATOS, 1h)' })).toBeVisible();

  // A new conversation starts from the welcome message.
  await chatPanel(page).getByRole('button', { name: 'New chat' }).click();
  await expect(chatPanel(page).getByTestId('user-message')).toHaveCount(0);
  await expect(chatPanel(page).getByText('WATOS Grid Trading Signals')).toBeVisible();
});

test('an attached option chain goes with the message, its name in brackets, and a failed send keeps both', async ({
  subscribedPage: page,
}) => {
  const chat = chatPanel(page);
  const input = page.getByPlaceholder(PLACEHOLDER);
  await expect(page.getByRole('button', { name: 'Attach option chain file' })).toHaveAttribute(
    'title',
    'Attach option chain file',
  );
  await expect(page.getByTestId('chat-file-input')).toHaveAttribute('accept', '.csv,.xlsx,.xls');

  await page.getByTestId('chat-file-input').setInputFiles(CHAIN);
  const chip = page.getByTestId('attachment-chip');
  await expect(chip).toContainText('option-chain.csv');
  await chip.getByRole('button', { name: 'Remove option-chain.csv' }).click();
  await expect(chip).toHaveCount(0);
  await page.getByTestId('chat-file-input').setInputFiles(CHAIN);
  await expect(chip).toContainText('option-chain.csv');

  // The server fails once: the text and the file stay, the trader sees it, the error is logged.
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  await page.route(
    '**/api/chat',
    (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal server error"}' }),
    { times: 1 },
  );
  await input.fill('What is the max pain of this chain?');
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(chat.getByTestId('chat-error')).toContainText('Your message was not sent: Internal server error');
  await expect(chat.getByTestId('user-message')).toContainText(['Not sent']);
  await expect(input).toHaveValue('What is the max pain of this chain?');
  await expect(chip).toContainText('option-chain.csv');
  expect(logged.some((text) => text.startsWith('Error sending chat message'))).toBe(true);

  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(chat.getByTestId('user-message')).toHaveText(['What is the max pain of this chain? [option-chain.csv]']);
  const answer = chat.getByTestId('assistant-message').last();
  await expect(answer.getByRole('heading', { name: 'File analysis: option-chain.csv' })).toBeVisible({
    timeout: ANSWER_TIMEOUT,
  });
  await expect(answer).toContainText('Put/call ratio by open interest: 0.85 (1,100 puts / 1,300 calls)');
  await expect(answer).toContainText('Max pain: strike 100');
  await expect(chat.getByTestId('chat-error')).toHaveCount(0);
  await expect(chip).toHaveCount(0);
  await expect(input).toHaveValue('');
});

test('the Prompt Catalog builds a prompt, appends its messages to the chat and resets', async ({
  subscribedPage: page,
}) => {
  const form = catalog(page);
  const category = form.getByLabel('Category', { exact: true });
  const prompt = form.getByLabel('Prompt', { exact: true });
  const generate = form.getByRole('button', { name: 'Generate Analysis' });
  await expect(prompt).toBeDisabled();
  await expect(generate).toBeDisabled();
  await expect(form.getByText('Please select a category and prompt')).toBeVisible();
  await expect(category.locator('option')).toContainText(['Market Overview', 'Options & Derivatives Analysis']);

  await category.selectOption('Probability & Odds');
  await expect(prompt).toBeEnabled();
  await expect(form.getByLabel('Timeframe', { exact: true }).locator('option')).toHaveText([
    '1m',
    '5m',
    '15m',
    '1h',
    '4h',
    '8h',
    '12h',
    'D',
    '3D',
    'W',
    'M',
    '12M',
  ]);
  // Every market of the symbol table, grouped by asset class; the 28 Coinbase products are the Crypto group.
  const symbols = form.getByLabel('Symbol', { exact: true });
  await expect(symbols.locator('optgroup')).toHaveCount(6);
  await expect(symbols.locator('optgroup[label="Crypto"] option')).toHaveCount(28);
  await expect(symbols.locator('option')).toHaveCount(SYMBOL_TABLE.length);
  // The prompt options read filled with the selected symbol and timeframe, never '{symbol}'.
  await expect(
    prompt.getByRole('option', {
      name: 'What are the odds for BTC-USD? Give the WATOS grid on the 1h timeframe with sample sizes and confidence intervals.',
    }),
  ).toHaveCount(1);
  await form.getByLabel('Timeframe', { exact: true }).selectOption('4h');
  await form.getByLabel('Symbol', { exact: true }).selectOption('SOL-USD');
  for (const label of await prompt.locator('option').allTextContents()) expect(label).not.toMatch(/[{}]/);
  const text =
    'What are the odds for SOL-USD? Give the WATOS grid on the 4h timeframe with sample sizes and confidence intervals.';
  await prompt.selectOption({ label: text });
  await expect(form.getByTestId('prompt-preview')).toHaveText(text);

  await slowDown(page, '**/external-api/prompt');
  await generate.click();
  await expect(form.getByRole('button', { name: 'Processing...' })).toBeDisabled();
  const chat = chatPanel(page);
  await expect(chat.getByTestId('user-message').last()).toHaveText(text, { timeout: ANSWER_TIMEOUT });
  const answer = chat.getByTestId('assistant-message').last();
  await expect(answer.getByRole('heading', { name: 'SOL-USD: What Are The Odds? (WATOS, 4h)' })).toBeVisible();
  await expect(answer.getByRole('heading', { name: 'WATOS Grid: SOL' })).toBeVisible();
  // After success the selections reset.
  await expect(category).toHaveValue('');
  await expect(prompt).toBeDisabled();
  await expect(generate).toHaveText('Generate Analysis');
  await page.unroute('**/external-api/prompt');

  // Options prompts hide timeframe and symbol and send the attached chain along.
  await category.selectOption('Options & Derivatives Analysis');
  await expect(form.getByLabel('Timeframe', { exact: true })).toHaveCount(0);
  await expect(form.getByLabel('Symbol', { exact: true })).toHaveCount(0);
  await page.getByTestId('chat-file-input').setInputFiles(CHAIN);
  await expect(form.getByTestId('prompt-attachment')).toContainText('option-chain.csv');
  await prompt.selectOption({ index: 1 });
  const optionsPrompt = (await prompt.locator('option:checked').textContent())!;
  await generate.click();
  await expect(chat.getByTestId('user-message').last()).toHaveText(`${optionsPrompt} [option-chain.csv]`, {
    timeout: ANSWER_TIMEOUT,
  });
  await expect(chat.getByTestId('assistant-message').last()).toContainText('Max pain: strike 100');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);

  // A failing call logs 'API error: {status}' and says so on the form; nothing is appended.
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  const before = await chat.getByTestId('user-message').count();
  await page.route('**/external-api/prompt', (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"down"}' }),
  );
  await category.selectOption('Market Overview');
  await prompt.selectOption({ index: 1 });
  await generate.click();
  await expect(form.getByRole('alert')).toHaveText('An error occurred while processing the prompt');
  await expect(category).toHaveValue('Market Overview');
  expect(logged).toContain('API error: 503');
  await expect(chat.getByTestId('user-message')).toHaveCount(before);
});
