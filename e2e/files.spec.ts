// My Stuff journeys in a real browser against the real server (disk storage): upload a CSV
// and an xlsx and see them listed with sizes, preview one, delete one, the docs/SPEC.md error for
// a .txt file and the server's error for a disguised one, 'Analyze with AI', and the linked
// spreadsheet column.
import ExcelJS from 'exceljs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

const TRADES_CSV = 'date,symbol,side,qty,price\n2026-01-02,BTC-USD,buy,0.5,97000\n2026-01-03,ETH-USD,sell,2,3400\n';

async function positionsWorkbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Positions');
  sheet.addRow(['Symbol', 'Quantity', 'Entry']);
  for (let index = 0; index < 40; index += 1) sheet.addRow([`COIN${index}`, index + 1, 100 + index * 2.5]);
  book.addWorksheet('Notes').addRow(['Note']).commit();
  return Buffer.from(await book.xlsx.writeBuffer());
}

function myStuff(page: Page) {
  return page.getByRole('region', { name: 'My Stuff' });
}

async function chooseFile(page: Page, name: string, mimeType: string, buffer: Buffer) {
  await myStuff(page).getByLabel('Choose a CSV or Excel file to upload').setInputFiles({ name, mimeType, buffer });
}

test('upload a CSV and an xlsx, see them with sizes, preview, delete one; a .txt is refused', async ({
  subscribedPage: page,
}) => {
  const panel = myStuff(page);
  const yours = panel.getByRole('region', { name: 'Your Files' });
  const publicFiles = panel.getByRole('region', { name: 'Public Files' });
  await expect(yours.getByText('No files uploaded yet')).toBeVisible();
  await expect(publicFiles.getByText('No public files available')).toBeVisible();
  await expect(
    panel.getByRole('region', { name: 'Wisesheet Files' }).getByText('No Wisesheet files loaded yet'),
  ).toBeVisible();
  await expect(yours.getByRole('button', { name: 'Upload' })).toBeVisible();

  await chooseFile(page, 'trades.csv', 'text/csv', Buffer.from(TRADES_CSV));
  await expect(yours.getByRole('status')).toHaveText('Upload successful!');
  const csvRow = yours.getByTestId('file-row').filter({ hasText: 'trades.csv' });
  await expect(csvRow.getByTestId('file-size')).toHaveText(`${Buffer.byteLength(TRADES_CSV)} Bytes`);

  const workbook = await positionsWorkbook();
  await chooseFile(
    page,
    'positions.xlsx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    workbook,
  );
  const xlsxRow = yours.getByTestId('file-row').filter({ hasText: 'positions.xlsx' });
  await expect(xlsxRow.getByTestId('file-size')).toHaveText(`${parseFloat((workbook.length / 1024).toFixed(2))} KB`);
  await expect(yours.getByTestId('file-row')).toHaveCount(2);
  await expect(yours.getByText('No files uploaded yet')).toHaveCount(0);

  // The preview shows the first rows of each worksheet.
  await xlsxRow.getByRole('button', { name: 'Preview positions.xlsx' }).click();
  const preview = page.getByRole('dialog', { name: 'Preview of positions.xlsx' });
  await expect(preview.getByRole('columnheader', { name: 'Symbol' })).toBeVisible();
  await expect(preview.getByRole('cell', { name: 'COIN0', exact: true })).toBeVisible();
  await expect(preview.getByText('First 20 of 40 rows')).toBeVisible();
  await expect(preview.getByRole('tab', { name: 'Notes' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(preview).toHaveCount(0);

  // The list comes from the server: still there after a reload.
  await page.reload();
  await expect(yours.getByTestId('file-row')).toHaveCount(2);

  await csvRow.getByRole('button', { name: 'Delete trades.csv' }).click();
  await csvRow.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(yours.getByTestId('file-row').filter({ hasText: 'trades.csv' })).toHaveCount(0);
  await expect(yours.getByTestId('file-row')).toHaveCount(1);

  // docs/SPEC.md's client check: a .txt never reaches the server.
  let uploadsSent = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/upload')) uploadsSent += 1;
  });
  await chooseFile(page, 'notes.txt', 'text/plain', Buffer.from('just some notes'));
  await expect(yours.getByRole('alert')).toHaveText('Please select a CSV or Excel file.');
  expect(uploadsSent).toBe(0);

  // The server checks the content too, and its error text is shown.
  await chooseFile(
    page,
    'disguised.xlsx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    Buffer.from(TRADES_CSV),
  );
  await expect(yours.getByRole('alert')).toHaveText(
    "The file's content is not an Excel (.xlsx) workbook, so it was refused.",
  );
  expect(uploadsSent).toBe(1);
  await expect(yours.getByTestId('file-row')).toHaveCount(1);
});

test('a failed list shows the docs/SPEC.md error in place of the lists, and a failed delete says so', async ({
  subscribedPage: page,
}) => {
  const panel = myStuff(page);
  await chooseFile(page, 'keep.csv', 'text/csv', Buffer.from(TRADES_CSV));
  const row = panel.getByTestId('file-row').filter({ hasText: 'keep.csv' });
  await expect(row).toBeVisible();

  await page.route('**/files/*', (route) =>
    route.request().method() === 'DELETE' ? route.fulfill({ status: 500, body: '{"error":"boom"}' }) : route.fallback(),
  );
  await row.getByRole('button', { name: 'Delete keep.csv' }).click();
  await row.getByRole('button', { name: 'Delete', exact: true }).click();
  // The error sits under the row, with the server's reason.
  await expect(row.getByRole('alert')).toHaveText('Failed to delete file: boom');
  await expect(row).toBeVisible();
  await page.unroute('**/files/*');

  await page.route('**/files', (route) => route.fulfill({ status: 503, body: '{"error":"down"}' }));
  await page.reload();
  await expect(panel.getByRole('region', { name: 'Your Files' }).getByText('Failed to fetch files')).toBeVisible();
  await expect(panel.getByRole('region', { name: 'Public Files' }).getByText('Failed to fetch files')).toBeVisible();
  await expect(panel.getByTestId('file-row')).toHaveCount(0);
});

test("'Analyze with AI' attaches the file to the chat input", async ({ subscribedPage: page }) => {
  await chooseFile(
    page,
    'positions.xlsx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    await positionsWorkbook(),
  );
  const row = myStuff(page).getByTestId('file-row').filter({ hasText: 'positions.xlsx' });
  await row.getByRole('button', { name: 'Analyze positions.xlsx with AI' }).click();
  await expect(page.getByTestId('attachment-chip')).toContainText('positions.xlsx');
});

test('the linked spreadsheet column refuses other links and lists the sheet names', async ({
  subscribedPage: page,
}) => {
  const column = myStuff(page).getByRole('region', { name: 'Wisesheet Files' });
  const link = column.getByLabel('Google Sheets link');
  await link.fill('https://example.com/spreadsheets/d/not-google');
  await column.getByRole('button', { name: 'Load' }).click();
  await expect(column.getByRole('alert')).toHaveText(
    'Paste a Google Sheets link (https://docs.google.com/spreadsheets/d/...).',
  );

  // Google is out of reach here: the browser-side flow is checked against a stand-in answer
  // (the server side runs against a local fake of Google in src/server/files/sheets.test.ts).
  let answer = { status: 200, body: JSON.stringify({ sheet_names: ['Watchlist', 'Trades 2026'] }) };
  await page.route('**/sheets/metadata', (route) => route.fulfill({ ...answer, contentType: 'application/json' }));
  await link.fill('https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/edit');
  await column.getByRole('button', { name: 'Load' }).click();
  await expect(column.getByTestId('sheet-name')).toHaveText(['Watchlist', 'Trades 2026']);

  answer = { status: 502, body: JSON.stringify({ error: 'Error fetching sheet metadata' }) };
  await column.getByRole('button', { name: 'Load' }).click();
  await expect(column.getByRole('alert')).toHaveText('Error fetching sheet metadata');
});
