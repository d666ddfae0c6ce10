import * as z from 'zod';
import { builtinTool } from '../../../protocol/tools';
import { zodValidator } from '../../tools/inputValidation';
import { field, ToolCallError, type RuntimeTool } from '../../tools/runtimeTool';
import type { AgentRun } from '../tree/agentRun';
import { CancelledError } from '../errors';
import { mailTime, newMailId, type MailEntry } from '../messaging/mail';
import { resultPayload } from './spawnTool';

/**
 * `TaskOutput` and `TaskStop`: how a parent follows the
 * background agents it started. A parent sees only its own children.
 */

const outputSchema = z.object({
  agent_id: z.string().min(1),
  block: z.boolean().optional().describe('Wait for the agent to finish (default true).'),
  timeout_ms: z.number().int().min(0).max(600_000).optional().describe('How long to wait when blocking (default 30000).'),
});

const stopSchema = z.object({ agent_id: z.string().min(1).describe('The agent id, or a teammate\'s name.') });
const parseOutputInput = zodValidator('TaskOutput', outputSchema);
const parseStopInput = zodValidator('TaskStop', stopSchema);

const DEFAULT_WAIT_MS = 30_000;

/** One of the agents `parent` started, by id, or a teammate of its by name. */
function childOf(parent: AgentRun, agentId: string): AgentRun {
  const wanted = agentId.trim();
  const child = [...parent.children].find((c) => c.id === wanted) ?? [...parent.children].find((c) => c.teammate?.name.toLowerCase() === wanted.toLowerCase());
  if (!child) {
    const mine = [...parent.children].map((c) => (c.teammate ? `${c.teammate.name} (${c.id})` : c.id));
    throw new ToolCallError(`No agent with id "${agentId}" was started by you.${mine.length ? ` Your agents: ${mine.join(', ')}` : ''}`);
  }
  return child;
}

function snapshot(child: AgentRun): Record<string, unknown> {
  if (child.result) return resultPayload(child.result);
  return { status: child.status, agentId: child.id, turns: child.turns };
}

type WaitOutcome = 'completed' | 'timeout' | 'aborted';

async function waitFor(child: AgentRun, timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> {
  if (child.ended) return 'completed';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      child.done.then(() => 'completed' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))),
      new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

export function taskOutputTool(parent: AgentRun): RuntimeTool {
  return {
    ...builtinTool('TaskOutput'),
    definition: {
      name: 'TaskOutput',
      description: 'Get the status or result of a background agent you started. By default waits (up to timeout_ms) for it to finish; block: false only reports its status.',
      input_schema: z.toJSONSchema(outputSchema) as never,
    },
    summarizeInput: (input) => field(input, 'agent_id') ?? '',
    run: async (raw, context) => {
      const input = parseOutputInput(raw);
      const child = childOf(parent, input.agent_id);
      if (input.block === false) return JSON.stringify(snapshot(child));
      const outcome = await parent.slot.whileWaiting(() => waitFor(child, input.timeout_ms ?? DEFAULT_WAIT_MS, context.signal));
      // The notice of a result the parent has now seen is not delivered again.
      if (outcome === 'completed') dropResult(parent, child.id);
      return JSON.stringify({ retrieval: outcome, ...snapshot(child) });
    },
  };
}

function dropResult(parent: AgentRun, agentId: string): void {
  parent.inbox.drop((item) => item.entry.kind === 'result' && item.entry.from?.agentId === agentId);
}

export function taskStopTool(parent: AgentRun): RuntimeTool {
  return {
    ...builtinTool('TaskStop'),
    definition: {
      name: 'TaskStop',
      description: 'Stop a background agent you started (and every agent it started), or end a teammate: an idle one ends at once, one at work is stopped. What it did so far is kept.',
      input_schema: z.toJSONSchema(stopSchema) as never,
    },
    summarizeInput: (input) => field(input, 'agent_id') ?? '',
    run: async (raw) => {
      const child = childOf(parent, parseStopInput(raw).agent_id);
      if (child.ended) return JSON.stringify({ ...snapshot(child), note: 'The agent had already ended.' });
      // An idle teammate has done its turn: it ends as completed; anything at work is stopped.
      if (child.teammate?.idle) child.teammate.end(`Its lead "${parent.agentName}" ended it.`);
      else child.controller.abort(new CancelledError(`Stopped by its parent agent "${parent.agentName}".`));
      const result = await child.done;
      dropResult(parent, child.id);
      return JSON.stringify(resultPayload(result));
    },
  };
}

/**
 * The entry a parent gets when a child it is not waiting for ends (a
 * background child, or one a message continued): how it ended, its output,
 * its error, read at the parent's next turn.
 */
export function resultEntry(child: AgentRun, parentId: string): MailEntry {
  const r = child.result!;
  const id = newMailId();
  const output = r.structuredOutput !== undefined ? JSON.stringify(r.structuredOutput) : (r.output ?? '');
  // A teammate goes by its team name; one a hook ended says why, with what it said last.
  const name = child.teammate?.name ?? child.agentName;
  const ended = child.teammate?.ending && child.teammate.reportsEnd ? `${child.teammate.ending}\n` : '';
  const body = r.status === 'completed' ? `${ended}${output}` : [r.error ?? '', output ? `Output so far:\n${output}` : ''].filter(Boolean).join('\n');
  return {
    id,
    agentId: parentId,
    runId: child.tree.runId,
    kind: 'result',
    text: `<task-notification agentId="${child.id}" agent="${name}" status="${r.status}" id="${id}">\n${body}\n</task-notification>`,
    from: { agentId: child.id, agentName: name },
    via: 'agent',
    sentAt: mailTime(),
    // The parent asked to wait for it (blocking): an ended parent is continued with it.
    ...(child.definition.blocking ? { wakes: true } : {}),
  };
}
