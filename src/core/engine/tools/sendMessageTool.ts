import * as z from 'zod';
import { TEAM_LEAD_ADDRESS } from '../../../protocol/team';
import { builtinTool } from '../../../protocol/tools';
import { zodValidator } from '../../tools/inputValidation';
import { field, oneLine, ToolCallError, type RuntimeTool } from '../../tools/runtimeTool';
import type { AgentRun } from '../tree/agentRun';
import type { Message, SendOutcome } from '../messaging/messenger';

/**
 * `SendMessage` (Claude Code's name): an agent writes to another agent
 * of its run tree, by id or by name: a lead redirects a background worker,
 * a worker reports to its lead mid-run, teammates talk to each other by
 * their team names (`team-lead` is the agent that leads the sender, `*`
 * every teammate). The recipient reads it at its next turn boundary; an
 * idle teammate wakes with it; one that has ended is continued with it
 * (and, when its parent is still at work, reports back to it). Claude
 * Code's structured shutdown messages end a teammate: a lead's
 * `shutdown_request` ends it after its current turn, a teammate's approving
 * `shutdown_response` ends itself.
 */

const shutdownRequest = z.object({ type: z.literal('shutdown_request'), reason: z.string().optional() });
const shutdownResponse = z.object({ type: z.literal('shutdown_response'), approve: z.boolean(), request_id: z.string().optional(), reason: z.string().optional() });

const inputSchema = z.object({
  to: z
    .string()
    .min(1)
    .describe(`The agent to write to: a teammate's name, "${TEAM_LEAD_ADDRESS}" for the agent that leads you, "*" for every teammate, or an agent id or name (your parent, an agent you started, a sibling).`),
  message: z
    .union([z.string().min(1), shutdownRequest, shutdownResponse])
    .describe('What to tell it: it reads it at its next turn, marked as a message from you. A lead may send {"type": "shutdown_request"} to end a teammate after its current turn.'),
  summary: z.string().optional().describe('A few words on what the message is about, shown in the views.'),
});
const parseInput = zodValidator('SendMessage', inputSchema);

/** An agent of the sender's run, as the tool needs to know it. */
export interface RunMember {
  agentId: string;
  agentName: string;
  ended: boolean;
  /** Its name in the run's team, when it is a teammate. */
  member?: string;
  /** For a teammate: the agent that leads it. */
  leadId?: string | null;
}

/** What the tool needs from the engine. */
export interface Messaging {
  /** The agents of a run known to the engine (at work, or ended and kept), and its teammates wherever they are. */
  members(runId: string): RunMember[];
  send(agentId: string, message: Message): Promise<SendOutcome>;
  /** Ends a teammate of the run at work here after its current turn (at once when idle); false when it is not at work here. */
  endTeammate(agentId: string, reason: string): boolean;
}

function label(m: RunMember): string {
  return m.member ?? m.agentName;
}

function describe(members: RunMember[]): string {
  return members.map((m) => `${label(m)} (${m.agentId}${m.ended ? ', ended' : ''})`).join(', ') || 'none';
}

/** The agent that leads `sender` in its team: its lead's id for a teammate, else its parent. */
function leadOf(sender: AgentRun, members: RunMember[]): RunMember | undefined {
  const leadId = members.find((m) => m.agentId === sender.id)?.leadId ?? sender.parent?.id ?? sender.reportsTo;
  return members.find((m) => m.agentId === leadId);
}

/** The agents `to` names, or the error that says who could be meant. */
function recipients(sender: AgentRun, to: string, members: RunMember[]): RunMember[] {
  const others = members.filter((m) => m.agentId !== sender.id);
  const target = to.trim();
  const lower = target.toLowerCase();
  if (target === '*') {
    const mates = others.filter((m) => m.member && !m.ended);
    if (mates.length === 0) throw new ToolCallError('No teammate is at work or idle in this run to write to.');
    return mates;
  }
  if (lower === TEAM_LEAD_ADDRESS) {
    const lead = leadOf(sender, members);
    if (!lead) throw new ToolCallError(`Nobody leads you: you are not a teammate. This run's agents: ${describe(others)}.`);
    return [lead];
  }
  const selfName = sender.teammate?.name ?? sender.agentName;
  if (target === sender.id || (lower === selfName.toLowerCase() && !others.some((m) => label(m).toLowerCase() === lower))) {
    throw new ToolCallError('You cannot send a message to yourself.');
  }
  const byId = others.find((m) => m.agentId === target);
  if (byId) return [byId];
  // A teammate's name is unique in its run; an agent name may not be.
  const mate = others.find((m) => m.member?.toLowerCase() === lower);
  if (mate) return [mate];
  const named = others.filter((m) => m.agentName.toLowerCase() === lower);
  // Two agents of one name: the one at work is meant, when only one is.
  const atWork = named.filter((m) => !m.ended);
  const pick = named.length === 1 ? named : atWork.length === 1 ? atWork : named;
  if (pick.length === 1) return pick;
  if (pick.length > 1) throw new ToolCallError(`Several agents of this run are called "${target}": ${describe(pick)}. Write to one by its agent id.`);
  throw new ToolCallError(`No agent "${target}" in this run. Its agents: ${describe(others)}.`);
}

export function sendMessageTool(sender: AgentRun, messaging: Messaging): RuntimeTool {
  return {
    ...builtinTool('SendMessage'),
    definition: {
      name: 'SendMessage',
      description: [
        'Send a message to another agent of this run: a teammate by its name, the agent that leads you ("team-lead"), every teammate ("*"), or by agent id or name your parent, an agent you started, a sibling.',
        'It reads the message at its next turn (never mid-answer). An agent at work goes on with it; an idle teammate wakes with it; one that has ended is continued with it, and its new result comes back to the agent that started it. Use it to redirect a background agent, to hand a teammate what it waits for, or to report to your lead while you keep working.',
        'Messages reach you the same way, as <message from="…" agent-id="…"> blocks; from="user" is the person using this tool.',
      ].join('\n'),
      input_schema: z.toJSONSchema(inputSchema) as never,
    },
    summarizeInput: (input) => {
      const message = (input as { message?: unknown } | null)?.message;
      const text = typeof message === 'string' ? message : message && typeof message === 'object' ? String((message as { type?: unknown }).type ?? '') : '';
      return `→ ${field(input, 'to') ?? '?'}: ${oneLine(field(input, 'summary') ?? text, 80)}`;
    },
    summarizeResult: (output) => {
      try {
        const parsed = JSON.parse(output) as { status?: string; to?: string };
        return `${parsed.status ?? 'sent'}${parsed.to ? ` · ${parsed.to}` : ''}`;
      } catch {
        return oneLine(output);
      }
    },
    run: async (raw) => {
      const input = parseInput(raw);
      const members = messaging.members(sender.tree.runId);
      if (typeof input.message !== 'string') return shutdown(sender, input.to, input.message, members, messaging);
      const text = input.message;
      const sent = [];
      for (const to of recipients(sender, input.to, members)) {
        // Only the run's first agent has the tool in plan mode; continuing an ended agent could change files.
        if (sender.planMode && to.ended) throw new ToolCallError(`${label(to)} (${to.agentId}) has ended, and in plan mode you may write only to agents at work: continuing it could change files.`);
        const outcome = await messaging.send(to.agentId, { text, from: { agentId: sender.id, agentName: sender.teammate?.name ?? sender.agentName }, via: 'agent' });
        sent.push({ to, outcome });
      }
      if (sent.length > 1) return JSON.stringify({ status: 'queued', to: sent.map((s) => label(s.to)), note: 'Each reads it at its next turn; idle ones wake with it.' });
      const { to, outcome } = sent[0]!;
      const note =
        outcome.delivery === 'continued'
          ? `${label(to)} had ended; it is continued with your message.${outcome.run.parent?.id === sender.id ? ' Its new result comes to you at your next turn.' : ''}`
          : `${label(to)} reads it at its next turn.`;
      return JSON.stringify({ status: outcome.delivery === 'continued' ? 'continued' : 'queued', to: label(to), agentId: to.agentId, note });
    },
  };
}

/** Claude Code's shutdown messages: a lead ends a teammate after its turn; a teammate that approves ends itself. */
function shutdown(sender: AgentRun, to: string, message: z.infer<typeof shutdownRequest> | z.infer<typeof shutdownResponse>, members: RunMember[], messaging: Messaging): string {
  if (message.type === 'shutdown_response') {
    if (!sender.teammate) throw new ToolCallError('Only a teammate answers a shutdown request.');
    if (!message.approve) return JSON.stringify({ status: 'declined', note: 'You go on; tell your lead why with a message.' });
    sender.teammate.end(`It agreed to shut down${message.reason ? `: ${message.reason}` : '.'}`);
    return JSON.stringify({ status: 'shutting_down', note: 'You end when this turn ends.' });
  }
  const ended = [];
  for (const target of recipients(sender, to, members)) {
    if (!target.member || target.leadId !== sender.id) throw new ToolCallError(`${label(target)} is not a teammate you lead; only its lead can end it.`);
    if (messaging.endTeammate(target.agentId, `Its lead "${sender.agentName}" ended it${message.reason ? `: ${message.reason}` : '.'}`)) ended.push(label(target));
  }
  return JSON.stringify({ status: 'shutdown_requested', to: ended, note: ended.length ? 'Each ends at once when idle, or when its current turn ends.' : 'None of them was at work.' });
}
