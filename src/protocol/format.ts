import { totalTokens, type Usage } from './runEvents';

/**
 * How tokens, durations and costs read in text surfaces (the CLI and the chat
 * participant), so a run reads the same in a terminal and in chat. The
 * sidebar has its own compact forms (webview-ui/src/format.ts).
 */

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

/** `$0.0042`, `$1.20`; empty for a free run (unknown price, or the demo model). */
export function formatCost(usd: number): string {
  if (usd <= 0) return '';
  return `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

export function formatUsage(usage: Usage): string {
  const cost = formatCost(usage.costUsd);
  return `${formatTokens(totalTokens(usage))} tok${cost ? ` · ${cost}` : ''}`;
}
