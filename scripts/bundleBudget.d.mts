// Types of scripts/bundleBudget.mjs (plain Node, no build step) for the TypeScript that
// imports it (bench/bundle.bench.ts).
export declare const LANDING_JS_BUDGET_BYTES: number;
export declare const LANDING_PAGE: string;
export declare const APP: string;
export declare const DASHBOARD_PAGE: string;
export declare const DEFAULT_WEB_ROOT: string;
export declare class BundleBudgetError extends Error {}

export interface BundleFile {
  file: string;
  bytes: number;
  gzip: number;
}

export interface RouteBundle {
  page: string;
  files: BundleFile[];
  gzip: number;
  bytes: number;
  later: string[];
  /** zod is bundled into a file the route loads before it renders. */
  zodBefore: boolean;
  /** Our schema modules importing zod in those files. */
  schemasBefore: string[];
}

export interface BundleMeasurement {
  budget: number;
  landing: RouteBundle;
  dashboard: RouteBundle;
  withinBudget: boolean;
}

export declare function kB(bytes: number): string;
export declare function routeBundle(webRoot: string, modules: string[]): RouteBundle;
export declare function measureBundles(webRoot?: string): BundleMeasurement;
export declare function zodProblems(result: BundleMeasurement): string[];
export declare function printBundles(result: BundleMeasurement): void;
