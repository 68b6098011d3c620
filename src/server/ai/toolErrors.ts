// The assistant's tools' expected failures: a ToolError carries the text the assistant shows
// (no such file, not a spreadsheet, a study it cannot run); market analysis's own errors ("No
// market data for ...") are shown the same way. A module of its own so the tools (tools.ts,
// studyTool.ts, scanTool.ts) share it without importing each other.
import { MarketAnalysisError } from '../analysis/service.ts';

export class ToolError extends Error {}

/** True for a failure the assistant shows as text: its tools' own, or market analysis's ("No market data for ..."). */
export function isToolError(error: unknown): error is ToolError | MarketAnalysisError {
  return error instanceof ToolError || error instanceof MarketAnalysisError;
}
