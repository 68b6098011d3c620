// Ids in a URL path, on every `:id` route: an id no row can have (past the column's range,
// negative, not a number, a NUL character) is a row that is not there. It gets the route's own
// 404, never the 400 "value cannot be stored" the database's refusal of the value would give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import type { Browser } from '../testing/http.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';

let test: TestApp;
let trader: Browser;
beforeAll(async () => {
  test = await createTestApp();
  trader = (await subscribedUser(test, 'path-ids@example.com')).browser;
});
afterAll(async () => {
  await test?.close();
});

const rule = { symbol: 'AAPL', condition: { kind: 'price_cross', direction: 'above', level: 200 } };

async function expectNotFound(response: { statusCode: number; json(): unknown }, error: string, label: string) {
  expect(response.statusCode, label).toBe(404);
  expect(jsonBody<{ error: string }>(response), label).toEqual({ error });
}

describe('ids in a URL path', () => {
  it('an alert rule id no rule can have is not found on PUT, PATCH and DELETE', async () => {
    const ids = ['2147483648', '99999999999999999999', '-1', '0', 'abc', '1.5', '1e3', '%00'];
    for (const id of ids) {
      const url = `/api/alert-rules/${id}`;
      await expectNotFound(await trader.put(url, rule), 'No such alert rule', `PUT ${id}`);
      await expectNotFound(await trader.patch(url, { status: 'paused' }), 'No such alert rule', `PATCH ${id}`);
      await expectNotFound(await trader.delete(url), 'No such alert rule', `DELETE ${id}`);
    }
    // The largest id the column holds is still an ordinary lookup.
    await expectNotFound(await trader.delete('/api/alert-rules/2147483647'), 'No such alert rule', 'DELETE max');
    // A bad body on an unknown id is still the body's 400: the path is read, not trusted.
    expect((await trader.patch('/api/alert-rules/2147483648', { status: 'gone' })).statusCode).toBe(400);
  });

  it('a file or subscription id with a character no text column takes is not found', async () => {
    for (const id of ['%00', 'a%00b']) {
      for (const path of [`/files/${id}/download`, `/files/${id}/versions`, `/files/${id}/preview`])
        await expectNotFound(await trader.get(path), 'File not found', `GET ${path}`);
      await expectNotFound(await trader.get(`/files/${id}/versions/1/download`), 'File not found', `version ${id}`);
      await expectNotFound(await trader.delete(`/files/${id}/versions/1`), 'File not found', `DELETE version ${id}`);
      await expectNotFound(await trader.delete(`/files/${id}`), 'File not found', `DELETE file ${id}`);
      // The billing routes' not-found answer is what an ordinary unknown id gets.
      const validate = await trader.get(`/api/subscriptions/validate/${id}`);
      expect(validate.statusCode, `validate ${id}`).toBe(404);
      expect(validate.json()).toEqual((await trader.get('/api/subscriptions/validate/unknown')).json());
      const cancel = await trader.post(`/api/subscriptions/${id}/cancel`, {});
      expect(cancel.statusCode, `cancel ${id}`).toBe(404);
      expect(cancel.json()).toEqual((await trader.post('/api/subscriptions/unknown/cancel', {})).json());
    }
  });
});
