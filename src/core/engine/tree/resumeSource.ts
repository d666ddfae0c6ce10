import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Usage } from '../../../protocol/runEvents';
import type { AgentDefinition } from '../../agents/definition';
import type { AgentRun } from './agentRun';
import { repairConversation, type AgentArchive } from './archive';
import { BusyElsewhereError, EngineError } from '../errors';
import type { TeamRecord } from '../team/team';

/** An ended agent, as a follow-up continues it. */
export interface ResumeSource {
  agentId: string;
  runId: string;
  /** The agent that started it (null for a root agent): a continued child reports back to it while it works. */
  parentId: string | null;
  parentToolUseId: string | null;
  definition: AgentDefinition;
  model: string;
  cwd: string;
  description: string;
  messages: BetaMessageParam[];
  /** How many of `messages` are in its transcript on disk (the rest is written with the follow-up's first turn). */
  persisted?: number;
  usage: Usage;
  turns: number;
  /** What of its conversation could not be read back, told to the user as the follow-up starts. */
  problems?: string[];
  /** A teammate's name in its team: continued, it is a teammate again. */
  member?: string;
  /** The run's team as its record keeps it (task list, roster, team file), for a run this process no longer holds. */
  team?: TeamRecord | null;
}

/**
 * Finds an ended agent: in the run history when there is one (read afresh:
 * another process may have continued the agent since), else in memory;
 * throws an EngineError that says what to do when it cannot be continued.
 */
export async function findResumable(
  agentId: string,
  where: { live: AgentRun | undefined; archive: AgentArchive | undefined; find: (name: string) => AgentDefinition | undefined },
): Promise<ResumeSource> {
  const { live, archive } = where;
  if (live && !live.ended) throw new EngineError(`Agent ${agentId} is still running; wait for it to finish, or stop it, before sending a follow-up.`);
  const archived = await archive?.load(agentId);
  // Ended in this process: memory holds all of it, even if another process's retention has since removed it from the history,
  // or its newest messages could not be saved (they are written with the follow-up's first turn).
  if (live && (!archived || archived === 'expired' || live.persisted < live.messages.length)) {
    return {
      agentId,
      runId: live.tree.runId,
      parentId: live.parent?.id ?? null,
      parentToolUseId: live.parentToolUseId,
      definition: live.definition,
      model: live.model,
      cwd: live.cwd,
      description: live.description,
      messages: live.messages,
      persisted: live.persisted,
      usage: live.usage,
      turns: live.turns,
      ...(live.teammate ? { member: live.teammate.name } : {}),
      team: live.tree.team.record(),
    };
  }
  if (archived === 'expired') {
    throw new EngineError(`Agent ${agentId} has expired: finished runs are kept for ${archive!.retentionDays} days (subagents.history.retentionDays).`);
  }
  if (!archived) throw new EngineError(`No agent with id "${agentId}" in the run history.`);
  const { node, runningIn, runBusyIn } = archived;
  if (runningIn && runningIn !== 'this process') {
    throw new BusyElsewhereError(`Agent ${agentId} is still running in ${runningIn}; send it a message (subagents send), or wait for it to finish there, before sending a follow-up.`, runningIn, node.runId);
  }
  if (runningIn) throw new EngineError(`Agent ${agentId} is still running; wait for it to finish, or stop it, before sending a follow-up.`);
  if (runBusyIn) {
    throw new BusyElsewhereError(`Agent ${agentId} belongs to a run that ${runBusyIn} is still working on; only that process can continue it (subagents send reaches it).`, runBusyIn, node.runId);
  }
  const definition = live?.definition ?? where.find(node.agentName);
  if (!definition) throw new EngineError(`The agent "${node.agentName}" that ran as ${agentId} is no longer defined; restore its file to continue it.`);
  // What could not be read back is named to the user; the rest is made a conversation the API takes again.
  const problems = archived.problems ?? [];
  const messages = problems.length ? repairConversation(archived.messages) : archived.messages;
  // A run killed before its first request saved nothing but its prompt.
  const history = messages.length ? messages : [{ role: 'user' as const, content: [{ type: 'text' as const, text: node.prompt }] }];
  return {
    agentId,
    runId: node.runId,
    parentId: node.parentId,
    parentToolUseId: node.parentToolUseId,
    definition,
    model: node.model,
    cwd: node.cwd,
    description: node.description,
    // A repaired conversation counts as the transcript it was read from: read again, it is repaired the same way.
    messages: history,
    persisted: messages.length ? history.length : 0,
    usage: node.usage,
    turns: node.turns,
    ...(node.member ? { member: node.member } : {}),
    team: archived.team ?? null,
    ...(problems.length ? { problems: [`The transcript of this agent could not be read back whole: ${problems.join('; ')}. It continues with the rest of its conversation.`] } : {}),
  };
}
