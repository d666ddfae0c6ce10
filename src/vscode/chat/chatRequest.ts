/**
 * What a message to `@agent` asks for (S6.2). Plain code (no `vscode`
 * import), unit-tested on its own.
 *
 *   /list, /status                      the agents; the runs
 *   <name> <task>                       run that agent (first word; exact name, then any case)
 *   <task>                              in a thread whose last answer was a run: a follow-up to
 *                                       that agent; otherwise the default agent (general-purpose)
 *   /new [<name>] <task>                a new run even in such a thread
 */

export const DEFAULT_CHAT_AGENT = 'general-purpose';

export type ChatIntent =
  | { kind: 'list' }
  | { kind: 'status' }
  | { kind: 'run'; agent: string; task: string; named: boolean }
  | { kind: 'followUp'; agentId: string; agentName: string; task: string }
  | { kind: 'help'; message: string };

/** What the previous answer in this chat thread left in its ChatResult.metadata. */
export interface ThreadRun {
  runId: string;
  agentId: string;
  agentName: string;
}

/** Finds an agent name: the exact one first, then one that differs only in case (when that is unambiguous). */
export function matchAgentName(word: string, names: readonly string[]): string | null {
  if (names.includes(word)) return word;
  const lower = word.toLowerCase();
  const matches = names.filter((n) => n.toLowerCase() === lower);
  return matches.length === 1 ? matches[0]! : null;
}

/** The first word, without the punctuation people put after a name (`tech-lead:`, `@tech-lead,`). */
function firstWord(text: string): { word: string; rest: string } {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
  if (!match) return { word: '', rest: '' };
  return { word: match[1]!.replace(/^@/, '').replace(/[:,]$/, ''), rest: match[2]!.trim() };
}

export function parseChatRequest(
  prompt: string,
  command: string | undefined,
  agentNames: readonly string[],
  previous: ThreadRun | null,
): ChatIntent {
  if (command === 'list') return { kind: 'list' };
  if (command === 'status') return { kind: 'status' };
  const text = prompt.trim();
  const { word, rest } = firstWord(text);
  const named = word ? matchAgentName(word, agentNames) : null;
  if (named) {
    if (!rest) return { kind: 'help', message: `What should **${named}** do? Write the task after its name: \`@agent ${named} <task>\`.` };
    return { kind: 'run', agent: named, task: rest, named: true };
  }
  if (!text) {
    return {
      kind: 'help',
      message: 'Name an agent and a task (`@agent tech-lead check the tests`), or just the task for the general-purpose agent. `/list` shows the agents, `/status` the runs.',
    };
  }
  if (previous && command !== 'new') return { kind: 'followUp', agentId: previous.agentId, agentName: previous.agentName, task: text };
  return { kind: 'run', agent: DEFAULT_CHAT_AGENT, task: text, named: false };
}
