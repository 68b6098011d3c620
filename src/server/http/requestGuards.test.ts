import { describe, expect, it } from 'vitest';
import { pathProblem } from './requestGuards.ts';

describe('pathProblem', () => {
  it('passes plain paths without parsing them, exactly where the URL parser leaves them as they are', () => {
    const plain = [
      '/',
      '/dashboard',
      '/api/alerts/stream',
      '/external-api/coinbase-prices',
      '/api/files/12/',
      '/a_b-C9',
    ];
    for (const path of plain) {
      expect(new URL(path, 'http://path.invalid').pathname).toBe(path);
      expect(pathProblem(path)).toBeNull();
      expect(pathProblem(`${path}?max_count=50&symbol=BTC`)).toBeNull();
    }
  });

  it('still refuses what the fast path does not cover', () => {
    expect(pathProblem('')).toBe('it must start with /');
    expect(pathProblem('dashboard')).toBe('it must start with /');
    expect(pathProblem('//dashboard')).toBe('it holds an empty segment (//)');
    expect(pathProblem('/api//alerts')).toBe('it holds an empty segment (//)');
    expect(pathProblem('/api/./alerts')).toBe('it holds a . or .. segment');
    expect(pathProblem('/api/%2e%2e/alerts')).toBe('it holds a . or .. segment');
    expect(pathProblem('/api/al erts')).toBe('it is not in canonical form');
    expect(pathProblem('/assets/app-1a2b.js')).toBeNull();
    expect(pathProblem('/api/%41lerts')).toBeNull();
  });
});
