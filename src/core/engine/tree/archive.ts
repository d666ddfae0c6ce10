import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AgentNode, RunSnapshot } from '../../../protocol/runSnapshot';
import type { MailEntry } from '../messaging/mail';
import type { TeamRecord } from '../team/team';

/** An ended agent as the engine needs it to continue. */
export interface ArchivedAgent {
  node: AgentNode;
  messages: BetaMessageParam[];
  /** Set while the agent is still at work: 'this process', or which other process runs it. */
  runningIn: string | null;
  /** Set while another live process works on the agent's run (another agent of it): only that process may continue the agent. */
  runBusyIn?: string | null;
  /** Parts of its transcript that could not be read back, each naming where and why. */
  problems?: string[];
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
  /**
   * Queues a message for an agent of a run another live process works on,
   * in one step with checking that it still does (so the message reaches
   * that process before it lets the run go); resolves to that process, or
   * null when the run is free now. Without it the message is simply posted.
   */
  queueIfBusy?(entry: MailEntry): Promise<string | null>;
  /**
   * Takes the run for this process to continue an agent of it, in one step
   * with checking that no other live process works on or holds it; when one
   * does, `entry` is queued for that process instead. Without it, `begin`
   * alone decides, and a process that took the run meanwhile makes it fail.
   */
  queueOrClaim?(entry: MailEntry): Promise<{ queued: string } | { claimed: true }>;
  /** Lets a run taken by queueOrClaim go when its continuation failed before it began. */
  unclaim?(runId: string): Promise<void>;
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

/**
 * A conversation read back with parts missing (lines of its transcript that
 * could not be read) made one the API takes again: every tool call of an
 * answer gets a result in the next message (an error result saying it was
 * lost, where it was), a result whose call is missing is left out, and a
 * conversation that would start with an answer starts with a note instead.
 * A whole conversation passes through unchanged.
 */
export function repairConversation(history: readonly BetaMessageParam[]): BetaMessageParam[] {
  const blocksOf = (m: BetaMessageParam): BetaContentBlockParam[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as BetaContentBlockParam[]));
  const lostResults = (ids: readonly string[]): BetaContentBlockParam[] =>
    ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'The result of this call could not be read back from the transcript.', is_error: true }));
  const out: BetaMessageParam[] = [];
  // The calls of the last answer still waiting for their results.
  let open: string[] = [];
  for (const message of history) {
    if (message.role === 'assistant') {
      if (open.length) out.push({ role: 'user', content: lostResults(open) });
      if (out.length === 0) out.push({ role: 'user', content: [{ type: 'text', text: '(The start of this conversation could not be read back from its transcript.)' }] });
      out.push(message);
      open = blocksOf(message).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      continue;
    }
    if (message.role !== 'user') {
      out.push(message);
      continue;
    }
    const content = blocksOf(message);
    const kept = content.filter((b) => b.type !== 'tool_result' || open.includes(b.tool_use_id));
    const answered = new Set(kept.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
    const lost = lostResults(open.filter((id) => !answered.has(id)));
    open = [];
    if (lost.length === 0 && kept.length === content.length) {
      out.push(message);
      continue;
    }
    const fixed = [...lost, ...kept];
    out.push({ role: 'user', content: fixed.length ? fixed : [{ type: 'text', text: '(A part of this conversation could not be read back from its transcript.)' }] });
  }
  // Calls of the very last answer are left open: continueConversation gives them results when the agent goes on.
  return out;
}
