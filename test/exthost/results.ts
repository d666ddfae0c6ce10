/** What test/exthost/index.ts writes to SUBAGENTS_EXTHOST_RESULTS. */
export interface ExthostTestResult {
  /** mocha's full title: `<suite> <test>`. */
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number;
  error?: string;
}

export interface ExthostResults {
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  vscodeVersion?: string;
  tests: ExthostTestResult[];
  /** Set when the runner itself failed (e.g. a suite file did not load). */
  error?: string;
}

export const RESULTS_ENV = 'SUBAGENTS_EXTHOST_RESULTS';

/**
 * Which folder of test/exthost/ the runner loads: `suite` (the default, one
 * folder open), `multiRoot` (a two-folder workspace) or `mcp` (a folder with
 * an MCP server in its `.vscode/mcp.json`).
 */
export const SUITE_ENV = 'SUBAGENTS_EXTHOST_SUITE';
export const SUITES = ['suite', 'multiRoot', 'mcp'] as const;
export type SuiteName = (typeof SUITES)[number];
