import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AgentNode, RunSnapshot } from '../../protocol/runSnapshot';
import type { TeamRecord } from './team/team';

/** An ended agent as the engine needs it to continue. */
export interface ArchivedAgent {
  node: AgentNode;
  messages: BetaMessageParam[];
  /** Set while the agent is still at work: 'this process', or which other process runs it. */
  runningIn: string | null;
  /** Set while another live process works on the agent's run (another agent of it): only that process may continue the agent. */
  runBusyIn?: string | null;
  /** The run's team as its record keeps it: its task list, teammates and team file. */
  team?: TeamRecord | null;
}

/** What a run's record keeps of its team, for the engine to rebuild it. */
export function teamRecordOf(run: RunSnapshot): TeamRecord {
  return {
    info: run.team ?? null,
    tasks: run.tasks ?? [],
    members: Object.values(run.agents)
      .filter((a) => a.member)
      .map((a) => ({ name: a.member!, agentId: a.agentId, leadId: a.parentId })),
  };
}

/** Where the engine keeps conversations, and finds ended agents again after a restart. */
export interface AgentArchive {
  appendTranscript(agentId: string, messages: readonly BetaMessageParam[]): Promise<void>;
  transcriptPath(agentId: string): string;
  /** 'expired': it existed but retention removed it; null: never heard of it. */
  load(agentId: string): Promise<ArchivedAgent | 'expired' | null>;
  /**
   * Called before an agent's first request: the run's record must be on
   * disk before anything is billed, and the run becomes this process's.
   * Rejects (an EngineError) when another live process works on the run.
   */
  begin(runId: string): Promise<void>;
  readonly retentionDays: number;
}

/**
 * Makes an earlier conversation safe to continue: a reply whose tool calls
 * never got results (the process died, or the agent was stopped mid-call)
 * gets error results, so the next request is well-formed; then the follow-up
 * becomes the next user message. Only appends, so the transcript on disk
 * stays a prefix of the conversation (the API joins consecutive user turns).
 */
export function continueConversation(history: readonly BetaMessageParam[], prompt: string): BetaMessageParam[] {
  const messages = [...history];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && Array.isArray(last.content)) {
    const calls = (last.content as BetaContentBlockParam[]).filter((b): b is Extract<BetaContentBlockParam, { type: 'tool_use' }> => b.type === 'tool_use');
    if (calls.length) {
      messages.push({
        role: 'user',
        content: calls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: 'This call was interrupted before it finished.', is_error: true })),
      });
    }
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
  return messages;
}
