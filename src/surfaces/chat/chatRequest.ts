/**
 * What a message to `@agent` asks for. Plain code (no `vscode`
 * import), unit-tested on its own.
 *
 *   /list, /status, or list, status,    the agents; the runs; what to write
 *   help alone
 *   <name> <task>                       run that agent (the first word, exactly as the name is written)
 *   @<name> <task>, <name>: <task>      the same, marked as a name
 *   <task>                              in a thread whose last answer was a run: a follow-up to
 *                                       that agent; otherwise the default agent (general-purpose)
 *   /new [<name>] <task>                a new run even in such a thread
 *   <one word>                          not a name: asked about before a run starts
 *                                       (`/new <word>` runs it)
 *   /stop [<name>]                      stop that agent of the thread's run (and the agents it
 *                                       started), or the whole run
 *
 * While the thread's run is still going, a message steers it instead: it
 * goes to the thread's agent (`<task>`), or to the agent of the run it
 * names (`@worker …`, `worker: …`, or its id), read at its next turn.
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
  /** A message for an agent of the thread's run, which is still going. */
  | { kind: 'message'; agentId: string; agentName: string; text: string }
  /** Stop one agent of the thread's run (null: the whole run). */
  | { kind: 'stop'; runId: string; agent: ThreadAgent | null }
  | { kind: 'help'; message: string }
  /** One word that names no agent: what it would run, to confirm (a follow-up button runs it). */
  | { kind: 'confirm'; agent: string; task: string };

/** What the previous answer in this chat thread left in its ChatResult.metadata. */
export interface ThreadRun {
  runId: string;
  agentId: string;
  agentName: string;
  /** The run's agents as the store has them now (the handler adds them). */
  agents?: readonly ThreadAgent[];
}

export interface ThreadAgent {
  agentId: string;
  agentName: string;
  active: boolean;
}

/** The agent of the run `word` names (its id, or its name: one at work first). */
function agentOfRun(word: string, agents: readonly ThreadAgent[]): ThreadAgent | undefined {
  const byId = agents.find((a) => a.agentId === word);
  if (byId) return byId;
  const named = agents.filter((a) => a.agentName.toLowerCase() === word.toLowerCase());
  return named.find((a) => a.active) ?? named[0];
}

function listAgents(agents: readonly ThreadAgent[]): string {
  return agents.map((a) => `\`${a.agentName}\` (${a.agentId}${a.active ? '' : ', ended'})`).join(', ');
}

function stopIntent(text: string, thread: ThreadRun | null): ChatIntent {
  if (!thread) return { kind: 'help', message: '`/stop` stops an agent of this thread\'s run, and this thread has none. Stop any agent from the Runs view (■ on its row) or with **Subagents: Stop Run**.' };
  const name = text.replace(/^@/, '').replace(/[:,]$/, '').trim();
  if (!name) return { kind: 'stop', runId: thread.runId, agent: null };
  const agent = agentOfRun(name, thread.agents ?? []);
  if (!agent) return { kind: 'help', message: `No agent "${name}" in this thread's run. Its agents: ${listAgents(thread.agents ?? []) || 'none'}.` };
  return { kind: 'stop', runId: thread.runId, agent };
}

/** The first word, and how it was marked as a name (`@tech-lead`, `tech-lead:`, `tech-lead,`). */
function firstWord(text: string): { word: string; at: boolean; marked: boolean; rest: string } {
  const match = /^\s*(@?)(\S+?)([:,]?)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return { word: '', at: false, marked: false, rest: '' };
  return { word: match[2]!, at: Boolean(match[1]), marked: Boolean(match[1] || match[3]), rest: (match[4] ?? '').trim() };
}

/** Letters only: a word a sentence may start with, not only a name. */
const ORDINARY_WORD = /^\p{L}+$/u;

export const CHAT_HELP =
  'Name an agent and a task (`@agent tech-lead check the tests`), or just the task for the general-purpose agent. `list` shows the agents, `status` the runs, `/new` starts afresh instead of continuing the last run, `/stop` stops it.';

/** Words that, alone, are a command rather than a task (as their slash commands are). */
const BARE_COMMANDS: Record<string, ChatIntent> = {
  list: { kind: 'list' },
  status: { kind: 'status' },
  help: { kind: 'help', message: CHAT_HELP },
};

export function parseChatRequest(
  prompt: string,
  command: string | undefined,
  agentNames: readonly string[],
  previous: ThreadRun | null,
): ChatIntent {
  if (command === 'list') return { kind: 'list' };
  if (command === 'status') return { kind: 'status' };
  const text = prompt.trim();
  if (command === 'stop') return stopIntent(text, previous);
  const bare = command === undefined ? BARE_COMMANDS[text.toLowerCase().replace(/^\/+|[.!?]+$/g, '')] : undefined;
  if (bare && !agentNames.includes(text)) return bare;
  const thread = previous && command !== 'new' ? previous : null;
  const { word, at, marked, rest } = firstWord(text);
  const going = thread?.agents?.some((a) => a.active) ? thread : null;
  if (going && text) {
    // The run is still at work: the message steers it, to the agent it names or to the thread's own.
    const named = marked || !ORDINARY_WORD.test(word) ? agentOfRun(word, going.agents!) : undefined;
    if (named && rest) return { kind: 'message', agentId: named.agentId, agentName: named.agentName, text: rest };
    // A name of the catalog, written as a name, still starts that agent (`@explore …`).
    const startsAgent = agentNames.includes(word) && (marked || !ORDINARY_WORD.test(word));
    if (!named && !startsAgent) return { kind: 'message', agentId: going.agentId, agentName: going.agentName, text };
  }
  const known = agentNames.includes(word);
  if (known && (!thread || marked || !ORDINARY_WORD.test(word))) {
    if (!rest) return { kind: 'help', message: `What should **${word}** do? Write the task after its name: \`@agent ${word} <task>\`.` };
    return { kind: 'run', agent: word, task: rest, named: true };
  }
  // `@name` that no agent has is a mistyped name, not a task: the handler says so.
  if (at && /^[\w.:-]+$/.test(word)) return { kind: 'run', agent: word, task: rest, named: true };
  if (!text) return { kind: 'help', message: CHAT_HELP };
  if (thread) return { kind: 'followUp', agentId: thread.agentId, agentName: thread.agentName, task: text, ...(known ? { mentioned: word } : {}) };
  // One word is more often a mistyped name or a stray word than a task: ask before a run costs anything.
  if (command !== 'new' && !/\s/.test(text)) return { kind: 'confirm', agent: DEFAULT_CHAT_AGENT, task: text };
  return { kind: 'run', agent: DEFAULT_CHAT_AGENT, task: text, named: false };
}
