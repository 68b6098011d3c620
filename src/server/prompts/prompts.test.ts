import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { Browser, jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { OPTIONS_CATEGORY, PROMPT_CATALOGUE } from './catalogue.ts';

let test: TestApp;
beforeAll(async () => {
  test = await createTestApp();
});
afterAll(async () => {
  await test?.close();
});

describe('GET /prompts', () => {
  it('is a dashboard API: 401 for a visitor', async () => {
    const response = await new Browser(test.app, test.config.publicUrl).get('/prompts');
    expect(response.statusCode).toBe(401);
  });

  it('lists at least 40 prompts in catalogue order, and one category when asked (URL-encoded)', async () => {
    const { browser } = await subscribedUser(test, 'prompts@example.com');
    const all = jsonBody<{
      prompts: Array<{ id: string; category: string; prompt: string; uses_market_context: boolean }>;
    }>(await browser.get('/prompts')).prompts;
    expect(all.length).toBe(PROMPT_CATALOGUE.length);
    expect(all.length).toBeGreaterThanOrEqual(40);
    expect(all[0]).toEqual({
      id: 'p1-01',
      category: 'Market Overview',
      prompt: PROMPT_CATALOGUE[0]!.prompt,
      uses_market_context: true,
    });
    expect(new Set(all.map((entry) => entry.category)).size).toBeGreaterThanOrEqual(6);

    const options = jsonBody<{ prompts: typeof all }>(
      await browser.get(`/prompts?category=${encodeURIComponent(OPTIONS_CATEGORY)}`),
    ).prompts;
    expect(options.length).toBeGreaterThanOrEqual(5);
    expect(options.every((entry) => entry.category === OPTIONS_CATEGORY && !entry.uses_market_context)).toBe(true);
    expect(options.every((entry) => !entry.prompt.includes('{symbol}'))).toBe(true);

    expect((await browser.get('/prompts?category=Nope')).json()).toEqual({ prompts: [] });
  });

  it('has no prompt with surrounding quotes or unknown placeholders', () => {
    for (const entry of PROMPT_CATALOGUE) {
      expect(entry.prompt).not.toMatch(/^["'].*["']$/);
      expect(entry.prompt.replace(/\{symbol\}|\{timeframe\}/g, '')).not.toMatch(/[{}]/);
    }
  });
});
