/**
 * What a message to `@agent` asks for (S6.2). Plain code (no `vscode`
 * import), unit-tested on its own.
 *
 *   /list, /status                      the agents; the runs
 *   <name> <task>                       run that agent (the first word, exactly as the name is written)
 *   @<name> <task>, <name>: <task>      the same, marked as a name
 *   <task>                              in a thread whose last answer was a run: a follow-up to
 *                                       that agent; otherwise the default agent (general-purpose)
 *   /new [<name>] <task>                a new run even in such a thread
 *
 * In such a thread, a message often starts with a verb that is also an
 * agent's name ("Plan the migration…", "explore why…"): there a name that is
 * an ordinary word starts that agent only when marked (`@plan …`, `plan: …`);
 * a name no sentence starts with (`test-runner`) needs no mark.
 */

export const DEFAULT_CHAT_AGENT = 'general-purpose';

export type ChatIntent =
  | { kind: 'list' }
  | { kind: 'status' }
  | { kind: 'run'; agent: string; task: string; named: boolean }
  | { kind: 'followUp'; agentId: string; agentName: string; task: string; /** An agent the message starts with, unmarked: the reply says how to run it instead. */ mentioned?: string }
  | { kind: 'help'; message: string };

/** What the previous answer in this chat thread left in its ChatResult.metadata. */
export interface ThreadRun {
  runId: string;
  agentId: string;
  agentName: string;
}

/** The first word, and how it was marked as a name (`@tech-lead`, `tech-lead:`, `tech-lead,`). */
function firstWord(text: string): { word: string; at: boolean; marked: boolean; rest: string } {
  const match = /^\s*(@?)(\S+?)([:,]?)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return { word: '', at: false, marked: false, rest: '' };
  return { word: match[2]!, at: Boolean(match[1]), marked: Boolean(match[1] || match[3]), rest: (match[4] ?? '').trim() };
}

/** Letters only: a word a sentence may start with, not only a name. */
const ORDINARY_WORD = /^\p{L}+$/u;

export function parseChatRequest(
  prompt: string,
  command: string | undefined,
  agentNames: readonly string[],
  previous: ThreadRun | null,
): ChatIntent {
  if (command === 'list') return { kind: 'list' };
  if (command === 'status') return { kind: 'status' };
  const text = prompt.trim();
  const thread = previous && command !== 'new' ? previous : null;
  const { word, at, marked, rest } = firstWord(text);
  const known = agentNames.includes(word);
  if (known && (!thread || marked || !ORDINARY_WORD.test(word))) {
    if (!rest) return { kind: 'help', message: `What should **${word}** do? Write the task after its name: \`@agent ${word} <task>\`.` };
    return { kind: 'run', agent: word, task: rest, named: true };
  }
  // `@name` that no agent has is a mistyped name, not a task: the handler says so.
  if (at && /^[\w.:-]+$/.test(word)) return { kind: 'run', agent: word, task: rest, named: true };
  if (!text) {
    return {
      kind: 'help',
      message: 'Name an agent and a task (`@agent tech-lead check the tests`), or just the task for the general-purpose agent. `/list` shows the agents, `/status` the runs.',
    };
  }
  if (thread) return { kind: 'followUp', agentId: thread.agentId, agentName: thread.agentName, task: text, ...(known ? { mentioned: word } : {}) };
  return { kind: 'run', agent: DEFAULT_CHAT_AGENT, task: text, named: false };
}
