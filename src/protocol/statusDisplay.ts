import type { TeammateState } from './team';
import type { AgentStatus } from './vocabulary';

/**
 * How every surface shows an agent's status, said once: the Runs view's row
 * and its hover, the chat's log, its end-of-run summary and `/status`, the
 * CLI's tree and `subagents runs`, the transcript. As the tool registry is
 * one table of tools, this is one table of statuses; a new status (a
 * teammate that idles between messages, say) is one more entry here, and the
 * type checker finds every surface that must learn it. Plain data, no schema
 * library, so the webview bundle can read it too.
 */

/** What a status means to the user, which decides its colour on every surface. */
export type StatusTone = 'active' | 'attention' | 'done' | 'error' | 'muted' | 'warning';

export interface StatusDisplay {
  /** The short word a row or a list shows ("needs approval", "stopped"). */
  readonly label: string;
  /** What a log line says happened to the agent, in the past tense where it ended ("was stopped"). */
  readonly sentence: string;
  /** The text symbol of terminals and chat Markdown. */
  readonly symbol: string;
  /** The codicon of VS Code's surfaces (the Runs view, quick picks). */
  readonly codicon: string;
  readonly tone: StatusTone;
  /**
   * Whether a row spells the label out beside its icon: a state the user
   * must notice or act on. Running and completed rows say it with the icon.
   */
  readonly spelled: boolean;
}

export const STATUS_DISPLAY: Readonly<Record<AgentStatus, StatusDisplay>> = {
  queued: { label: 'queued', sentence: 'is queued', symbol: '○', codicon: 'clock', tone: 'muted', spelled: true },
  running: { label: 'running', sentence: 'is running', symbol: '●', codicon: 'loading', tone: 'active', spelled: false },
  waiting: { label: 'needs approval', sentence: 'waits for your approval', symbol: '?', codicon: 'question', tone: 'attention', spelled: true },
  // A teammate between turns: alive (a message wakes it), so never shown as ended.
  idle: { label: 'idle', sentence: 'is idle until a message wakes it', symbol: '◌', codicon: 'debug-pause', tone: 'muted', spelled: true },
  completed: { label: 'completed', sentence: 'finished', symbol: '✓', codicon: 'pass', tone: 'done', spelled: false },
  failed: { label: 'failed', sentence: 'failed', symbol: '✕', codicon: 'error', tone: 'error', spelled: true },
  cancelled: { label: 'stopped', sentence: 'was stopped', symbol: '⊘', codicon: 'circle-slash', tone: 'muted', spelled: true },
  budget_exceeded: { label: 'budget reached', sentence: 'stopped at its budget', symbol: '$', codicon: 'warning', tone: 'warning', spelled: true },
  interrupted: { label: 'interrupted', sentence: 'was interrupted', symbol: '⚠', codicon: 'debug-disconnect', tone: 'warning', spelled: true },
};

export function statusDisplay(status: AgentStatus): StatusDisplay {
  return STATUS_DISPLAY[status];
}

/** "✕ failed": the symbol and the word, where a surface has room for both. */
export function statusText(status: AgentStatus): string {
  const d = STATUS_DISPLAY[status];
  return `${d.symbol} ${d.label}`;
}

/**
 * A team's roster in the same terms: the four states a lead must tell apart
 * (an idle teammate is alive, an ended one is not), and a declared member the
 * lead has not spawned yet.
 */
export type RosterState = TeammateState | 'not started';

export const TEAMMATE_DISPLAY: Readonly<Record<RosterState, Pick<StatusDisplay, 'label' | 'symbol' | 'codicon' | 'tone'>>> = {
  working: { label: 'working', symbol: '●', codicon: 'loading', tone: 'active' },
  waiting: { label: STATUS_DISPLAY.waiting.label, symbol: STATUS_DISPLAY.waiting.symbol, codicon: STATUS_DISPLAY.waiting.codicon, tone: 'attention' },
  idle: { label: STATUS_DISPLAY.idle.label, symbol: STATUS_DISPLAY.idle.symbol, codicon: STATUS_DISPLAY.idle.codicon, tone: 'muted' },
  ended: { label: 'ended', symbol: '✓', codicon: 'pass', tone: 'done' },
  'not started': { label: 'not started', symbol: '○', codicon: 'circle-large-outline', tone: 'muted' },
};
