import type Anthropic from '@anthropic-ai/sdk';
import type { BetaContentBlockParam, BetaMessage, BetaToolUseBlock } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { addUsage, type FinishStatus, type Usage } from '../../../protocol/runEvents';
import { builtinToolByApiName } from '../../../protocol/tools';
import type { RuntimeTool } from '../../tools/runtimeTool';
import type { AgentRun, EmitEvent } from '../tree/agentRun';
import { BudgetExceededError } from '../errors';
import { costOf } from './models';
import { buildTurnParams, textOf, toParam } from './requestBuilder';
import { deliveredText } from '../messaging/mail';
import { STRUCTURED_OUTPUT_TOOL, type StructuredOutputSlot } from './structuredOutput';
import { executeToolCalls, type ToolCallHooks } from './toolExecutor';
import type { Authorize } from '../tree/authorize';
import type { NetworkPolicy } from './network';
import { nextLoopTurn } from './loopTurns';
import { streamTurn, TurnError } from './turnStream';
import type { IdleOutcome } from '../team/idleTurn';

/**
 * One agent's query loop: send the conversation, stream the answer,
 * run the tool calls it asks for, feed the results back; stop at the end of
 * the turn, at `maxTurns`, on abort, or on an unrecoverable error. The loop
 * owns its history, so it can be persisted, resumed and retried as sent.
 */

export interface LoopDeps {
  client: Anthropic;
  tools: ReadonlyMap<string, RuntimeTool>;
  system: string;
  /** This agent's way through the permission gate (redacting what it asks about). */
  authorize: Authorize;
  maxTokens: number;
  network: NetworkPolicy;
  structured: StructuredOutputSlot | null;
  emit: EmitEvent;
  /** The engine's redaction (redaction.ts), for what tools take and give before it is cut. */
  redact<T>(value: T): T;
  /** Called with each turn's usage (already priced), for the tree's budget. */
  onUsage(delta: Usage): void;
  /** Called before each request: the conversation so far is final and can be saved. */
  persist(): void;
  /** Asked when the agent is about to complete; an instruction sends it back to work (SubagentStop hooks). */
  beforeComplete(output: string, round: number): Promise<string | null>;
  /** For a teammate, instead of completing: it goes idle until a message wakes it, or it is ended (team/idleTurn.ts). */
  idle?(output: string, round: number): Promise<IdleOutcome>;
}

export interface LoopOutcome {
  status: FinishStatus;
  output: string | null;
  structuredOutput?: unknown;
  error: string | null;
}

/** How often an agent with an output schema is reminded to call StructuredOutput before it fails. */
const STRUCTURED_OUTPUT_REMINDERS = 2;

function usageOf(message: BetaMessage, model: string): Usage {
  const u = message.usage;
  const tokens = {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    cacheReadTokens: u.cache_read_input_tokens ?? 0,
    cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
  };
  return { ...tokens, costUsd: costOf(model, tokens) };
}

/**
 * Delivers what waits in the agent's inbox (messages, children's results):
 * appended to the last user message (a text block after any tool results),
 * or as a user message of its own after the model's answer.
 */
function deliverInbox(run: AgentRun, emit: EmitEvent): void {
  const items = run.inbox.take();
  if (items.length === 0) return;
  const blocks: BetaContentBlockParam[] = items.map((item) => ({ type: 'text', text: deliveredText(item.entry) }));
  const last = run.messages.at(-1);
  if (last?.role === 'user') {
    const content: BetaContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
    run.messages[run.messages.length - 1] = { role: 'user', content: [...content, ...blocks] };
  } else {
    run.messages.push({ role: 'user', content: blocks });
  }
  for (const item of items) if (item.posted) emit({ type: 'message_delivered', messageId: item.entry.id });
}

function toolHooks(run: AgentRun, deps: LoopDeps): ToolCallHooks {
  return {
    authorize: async (call, tool, summary) =>
      deps.authorize({
        tool,
        toolUseId: call.id,
        summary,
        protectedReason: await tool.protectedTarget?.(call.input),
        input: call.input,
        ...(tool.approvalPreview ? { preview: () => tool.approvalPreview!(call.input) } : {}),
      }),
    started: (call, tool, summary) => {
      run.written?.record(tool, call.input, run.cwd);
      deps.emit({ type: 'tool_started', toolUseId: call.id, name: tool?.name ?? call.name, inputSummary: summary, ...(tool?.origin ? { server: tool.origin } : {}) });
    },
    finished: (call, ok, summary, durationMs) =>
      deps.emit({ type: 'tool_finished', toolUseId: call.id, name: deps.tools.get(call.name)?.name ?? call.name, ok, resultSummary: summary, durationMs }),
    redact: deps.redact,
  };
}

/** Server tools (web search) ran on the API side during the turn: report them as tool rows too. */
function reportServerTools(message: BetaMessage, emit: EmitEvent): void {
  for (const block of message.content) {
    if (block.type !== 'server_tool_use') continue;
    const name = builtinToolByApiName(block.name)?.name ?? block.name;
    const input = block.input as { query?: string; url?: string } | null;
    emit({ type: 'tool_started', toolUseId: block.id, name, inputSummary: String(input?.query ?? input?.url ?? '') });
    const result = message.content.find((b) => 'tool_use_id' in b && b.tool_use_id === block.id);
    const failed = Boolean(result && typeof result === 'object' && 'content' in result && (result.content as { type?: string })?.type?.endsWith('_error'));
    emit({ type: 'tool_finished', toolUseId: block.id, name, ok: !failed, resultSummary: failed ? 'failed' : 'done', durationMs: 0 });
  }
}

export async function runQueryLoop(run: AgentRun, deps: LoopDeps): Promise<LoopOutcome> {
  let lastText = '';
  let reminders = 0;
  let stopRounds = 0;
  let idleRounds = 0;
  const hooks = toolHooks(run, deps);
  try {
    for (;;) {
      // Many agents whose answers came together start their next turns one loop turn apart (loopTurns.ts).
      await nextLoopTurn();
      if (run.turns >= run.maxTurns) {
        return { status: 'failed', output: lastText || null, error: `Stopped after ${run.maxTurns} turns (maxTurns) before the agent finished.` };
      }
      deliverInbox(run, deps.emit);
      deps.persist();
      // Read every turn: an MCP server may have changed its tools since the last one.
      const toolDefinitions = [...deps.tools.values()].map((t) => t.definition);
      const params = buildTurnParams({ model: run.model, maxTokens: deps.maxTokens, system: deps.system, tools: toolDefinitions, messages: run.messages, thinking: run.thinking });
      const { message, invalidInputs } = await streamTurn(deps.client, params, {
        signal: run.signal,
        policy: deps.network,
        onText: (text) => deps.emit({ type: 'text', text }),
        onRetry: (attempt, delayMs, reason) => deps.emit({ type: 'retry', attempt, delayMs, reason }),
      });
      run.turns++;
      const delta = usageOf(message, run.model);
      run.usage = addUsage(run.usage, delta);
      deps.emit({ type: 'usage', usage: run.usage, turns: run.turns });
      run.messages.push({ role: 'assistant', content: message.content.map(toParam) });
      reportServerTools(message, deps.emit);
      lastText = textOf(message.content) || lastText;
      // Budget checks happen here, between turns, so the history stays whole.
      deps.onUsage(delta);
      run.signal.throwIfAborted();

      const calls = message.content.filter((b): b is BetaToolUseBlock => b.type === 'tool_use');
      if (calls.length > 0) {
        const results = await executeToolCalls(calls, deps.tools, hooks, run.signal, invalidInputs);
        run.messages.push({ role: 'user', content: results });
        run.signal.throwIfAborted();
        if (deps.structured && deps.structured.value !== undefined) {
          return { status: 'completed', output: JSON.stringify(deps.structured.value), structuredOutput: deps.structured.value, error: null };
        }
        continue;
      }
      // A server tool paused a long turn: send it back as it is so the API continues it.
      if (message.stop_reason === 'pause_turn') continue;

      // The turn ended. Background children still at work get waited for;
      // their results, and messages, start another turn (what idle
      // teammates report waits until none is at work: one turn for all).
      while (run.inbox.urgent === 0 && run.runningBackgroundChildren().length > 0) {
        await run.inbox.next(run.signal);
        run.signal.throwIfAborted();
      }
      if (run.inbox.size > 0) continue;
      if (deps.structured && deps.structured.value === undefined) {
        if (reminders++ < STRUCTURED_OUTPUT_REMINDERS) {
          run.messages.push({ role: 'user', content: [{ type: 'text', text: `You have not returned your result yet. Call the ${STRUCTURED_OUTPUT_TOOL} tool now with your final result.` }] });
          continue;
        }
        return { status: 'failed', output: lastText || null, error: `The agent ended without returning a result through ${STRUCTURED_OUTPUT_TOOL} although an output schema was required.` };
      }
      if (deps.idle) {
        const next = await deps.idle(lastText, idleRounds);
        if (next.go === 'instruction') {
          idleRounds++;
          run.messages.push({ role: 'user', content: [{ type: 'text', text: next.text }] });
          continue;
        }
        if (next.go === 'message') {
          idleRounds = 0;
          continue;
        }
        return { status: 'completed', output: lastText, error: null };
      }
      const more = await deps.beforeComplete(lastText, stopRounds);
      if (more) {
        stopRounds++;
        run.messages.push({ role: 'user', content: [{ type: 'text', text: more }] });
        continue;
      }
      // A message that came while the stop hooks ran is the next turn, not a loss.
      if (run.inbox.size > 0) continue;
      return { status: 'completed', output: lastText, error: null };
    }
  } catch (error) {
    if (run.signal.aborted) {
      const reason: unknown = run.signal.reason;
      if (reason instanceof BudgetExceededError) return { status: 'budget_exceeded', output: lastText || null, error: reason.message };
      return { status: 'cancelled', output: lastText || null, error: reason instanceof Error ? reason.message : 'Cancelled.' };
    }
    if (error instanceof TurnError) return { status: 'failed', output: lastText || null, error: error.message };
    return { status: 'failed', output: lastText || null, error: `Internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}` };
  }
}
