import * as z from 'zod';
import { builtinTool } from '../../protocol/tools';
import { zodValidator } from '../tools/inputValidation';
import { field, oneLine, ToolCallError, type RuntimeTool } from '../tools/runtimeTool';
import type { AgentRun } from './agentRun';
import type { Message, SendOutcome } from './messenger';

/**
 * `SendMessage` (Claude Code's name): an agent writes to another agent
 * of its run tree, by id or by name: a lead redirects a background worker,
 * a worker reports to its lead mid-run. The recipient reads it at its next
 * turn boundary; one that has ended is continued with it (and, when its
 * parent is still at work, reports back to it).
 */

const inputSchema = z.object({
  to: z.string().min(1).describe('The agent to write to: its agent id, or its name when one agent of this run has it (your parent, an agent you started, a sibling).'),
  message: z.string().min(1).describe('What to tell it. It reads it at its next turn, marked as a message from you.'),
});
const parseInput = zodValidator('SendMessage', inputSchema);

/** An agent of the sender's run, as the tool needs to know it. */
export interface RunMember {
  agentId: string;
  agentName: string;
  ended: boolean;
}

/** What the tool needs from the engine. */
export interface Messaging {
  /** The agents of a run known to the engine (at work, or ended and kept). */
  members(runId: string): RunMember[];
  send(agentId: string, message: Message): Promise<SendOutcome>;
}

function describe(members: RunMember[]): string {
  return members.map((m) => `${m.agentName} (${m.agentId}${m.ended ? ', ended' : ''})`).join(', ') || 'none';
}

/** The one agent `to` names, or the error that says who could be meant. */
function recipient(sender: AgentRun, to: string, members: RunMember[]): RunMember {
  const others = members.filter((m) => m.agentId !== sender.id);
  const target = to.trim();
  if (target === sender.id || (target.toLowerCase() === sender.agentName.toLowerCase() && !others.some((m) => m.agentName.toLowerCase() === target.toLowerCase()))) {
    throw new ToolCallError('You cannot send a message to yourself.');
  }
  const byId = others.find((m) => m.agentId === target);
  if (byId) return byId;
  const named = others.filter((m) => m.agentName.toLowerCase() === target.toLowerCase());
  // Two agents of one name: the one at work is meant, when only one is.
  const atWork = named.filter((m) => !m.ended);
  const pick = named.length === 1 ? named : atWork.length === 1 ? atWork : named;
  if (pick.length === 1) return pick[0]!;
  if (pick.length > 1) throw new ToolCallError(`Several agents of this run are called "${target}": ${describe(pick)}. Write to one by its agent id.`);
  throw new ToolCallError(`No agent "${target}" in this run. Its agents: ${describe(others)}.`);
}

export function sendMessageTool(sender: AgentRun, messaging: Messaging): RuntimeTool {
  return {
    ...builtinTool('SendMessage'),
    definition: {
      name: 'SendMessage',
      description: [
        'Send a message to another agent of this run: your parent, an agent you started (running in the background or ended), or a sibling. Address it by agent id, or by name when only one agent has that name.',
        'It reads the message at its next turn (never mid-answer). An agent at work goes on with it; one that has ended is continued with it, and its new result comes back to the agent that started it. Use it to redirect a background agent, or to report to the agent that started you while you keep working.',
        'Messages reach you the same way, as <message from="…" agent-id="…"> blocks; from="user" is the person using this tool.',
      ].join('\n'),
      input_schema: z.toJSONSchema(inputSchema) as never,
    },
    summarizeInput: (input) => `→ ${field(input, 'to') ?? '?'}: ${oneLine(field(input, 'message') ?? '', 80)}`,
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
      const to = recipient(sender, input.to, messaging.members(sender.tree.runId));
      // Only the run's first agent has the tool in plan mode; continuing an ended agent could change files.
      if (sender.planMode && to.ended) throw new ToolCallError(`${to.agentName} (${to.agentId}) has ended, and in plan mode you may write only to agents at work: continuing it could change files.`);
      const outcome = await messaging.send(to.agentId, { text: input.message, from: { agentId: sender.id, agentName: sender.agentName }, via: 'agent' });
      const note =
        outcome.delivery === 'continued'
          ? `${to.agentName} had ended; it is continued with your message.${outcome.run.parent?.id === sender.id ? ' Its new result comes to you at your next turn.' : ''}`
          : `${to.agentName} reads it at its next turn.`;
      return JSON.stringify({ status: outcome.delivery === 'continued' ? 'continued' : 'queued', to: to.agentName, agentId: to.agentId, note });
    },
  };
}
