import type { AgentNode } from '../../protocol/runSnapshot';

/**
 * The title of an agent's transcript tab: its name and the start of its task,
 * so two tabs of two agents of one name (the same agent in two runs) tell
 * them apart; where even that is taken by an open tab, the time it started.
 */

const TASK_CHARS = 28;

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

function clock(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}:${String(d.getSeconds()).padStart(2, '0')}`;
}

/** `taken`: the titles of the transcript tabs open now. */
export function transcriptTitle(node: Pick<AgentNode, 'agentName' | 'description' | 'startedAt'>, taken: ReadonlySet<string>): string {
  const task = clip(node.description ?? '', TASK_CHARS);
  const base = task ? `${node.agentName}: ${task}` : `${node.agentName} · transcript`;
  if (!taken.has(base)) return base;
  return `${base} (${clock(node.startedAt)})`;
}
