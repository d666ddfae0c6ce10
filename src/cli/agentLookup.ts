import { isActiveStatus } from '../protocol/runEvents';
import type { ArchivedAgent } from '../core/engine/tree/archive';
import type { RunHistory } from '../core/runs/history';
import { terminalLine } from './render/terminalText';

/**
 * Finding the agent a `send` or `stop` names, in the run history every
 * process shares, and saying which agents exist when it is not there.
 */

/** How many agents the "known agents" list names. */
const KNOWN_SHOWN = 12;
/** The newest runs it looks in (besides those at work): more than enough for twelve agents. */
const KNOWN_RUNS = 50;

/** The agents a mistyped id may have meant: those at work first, then the newest. */
export function knownAgents(history: RunHistory): string {
  const nodes = history.summaries(KNOWN_RUNS, { atWork: true }).flatMap((run) => Object.entries(run.agents).map(([agentId, a]) => ({ ...a, agentId, runId: run.runId })));
  const atWork = nodes.filter((n) => isActiveStatus(n.status));
  const ended = nodes.filter((n) => !isActiveStatus(n.status)).sort((a, b) => (b.endedAt ?? b.startedAt) - (a.endedAt ?? a.startedAt));
  const shown = [...atWork, ...ended].slice(0, KNOWN_SHOWN);
  if (shown.length === 0) return 'The run history has no agents yet.';
  const lines = shown.map((n) => `  ${n.agentId}  ${terminalLine(n.agentName).padEnd(18)} ${n.status.padEnd(11)} run ${n.runId}`);
  const more = nodes.length - shown.length;
  return `Known agents${atWork.length ? ' (at work first)' : ''}:\n${lines.join('\n')}${more > 0 ? `\n  … and ${more} more ("subagents runs" lists the runs)` : ''}`;
}

export type Lookup = { found: ArchivedAgent } | { missing: string };

/**
 * The agent a teammate's name stands for, where the argument is no agent id:
 * the one teammate of that name at work, or, none at work, the one of the
 * newest run. Several at work is a question only an id answers.
 */
function teammateNamed(history: RunHistory, name: string, command: string): { agentId: string } | { missing: string } | null {
  const wanted = name.toLowerCase();
  const mates = history.summaries().flatMap((run) => Object.entries(run.agents).map(([agentId, a]) => ({ ...a, agentId, runId: run.runId }))).filter((n) => n.member?.toLowerCase() === wanted);
  if (mates.length === 0) return null;
  const atWork = mates.filter((n) => isActiveStatus(n.status));
  if (atWork.length === 1) return { agentId: atWork[0]!.agentId };
  if (atWork.length === 0) return { agentId: mates.reduce((a, b) => (b.startedAt > a.startedAt ? b : a)).agentId };
  const lines = atWork.map((n) => `  ${n.agentId}  ${terminalLine(n.member ?? n.agentName).padEnd(18)} ${n.status.padEnd(11)} run ${n.runId}`);
  return { missing: `subagents ${command}: ${atWork.length} teammates named "${terminalLine(name)}" are at work; give the agent id of the one you mean:\n${lines.join('\n')}\n` };
}

/** The agent with this id (or, a teammate, this team name), or the message (with the known agents) for exit code 2. */
export async function lookUpAgent(history: RunHistory, idOrName: string, command: string): Promise<Lookup> {
  let agentId = idOrName;
  await history.ready();
  if (!history.summaries().some((run) => Object.hasOwn(run.agents, idOrName))) {
    const mate = teammateNamed(history, idOrName, command);
    if (mate && 'missing' in mate) return mate;
    if (mate) agentId = mate.agentId;
  }
  const archived = await history.load(agentId);
  if (archived === 'expired') {
    return {
      missing: `subagents ${command}: agent ${terminalLine(agentId)} has expired: its run was removed from the history (history.retentionDays is ${history.retentionDays} days, history.maxRuns caps how many are kept).\n${knownAgents(history)}\n`,
    };
  }
  if (!archived) return { missing: `subagents ${command}: no agent "${terminalLine(agentId)}" in the run history.\n${knownAgents(history)}\n` };
  return { found: archived };
}

/** The other live process that works on the agent or its run, if any. */
export function ownerElsewhere(archived: ArchivedAgent): string | null {
  if (archived.runningIn && archived.runningIn !== 'this process') return archived.runningIn;
  return archived.runBusyIn ?? null;
}
