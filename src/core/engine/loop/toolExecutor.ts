import type { BetaToolResultBlockParam, BetaToolUseBlock } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Denial } from '../../tools/permissions';
import { MAX_RESULT_CHARS, oneLine, ToolCallError, type RuntimeTool, type ToolOutput } from '../../tools/runtimeTool';

/**
 * Runs the tool calls of one assistant turn: consecutive calls that are
 * safe to overlap (reads, searches, spawns) run together; any other call runs
 * alone, in the order the model wrote it. Results come back in call order.
 * Nothing a tool does (bad input, input that is not even JSON, a denial, a crash) escapes as an exception:
 * it becomes an `is_error` result the model can react to.
 */

export interface ToolCallHooks {
  /** Resolves to null when the call may run, or to why not. */
  authorize(call: BetaToolUseBlock, tool: RuntimeTool, summary: string): Promise<Denial | null>;
  started(call: BetaToolUseBlock, tool: RuntimeTool | undefined, summary: string): void;
  finished(call: BetaToolUseBlock, ok: boolean, summary: string, durationMs: number): void;
  /**
   * Takes the secrets out of what a tool was given and gave back (redaction.ts),
   * before anything is summarised or capped: a cut secret would no longer be
   * recognised whole.
   */
  redact<T>(value: T): T;
}

export function partition(calls: BetaToolUseBlock[], tools: ReadonlyMap<string, RuntimeTool>): BetaToolUseBlock[][] {
  const batches: BetaToolUseBlock[][] = [];
  for (const call of calls) {
    const safe = tools.get(call.name)?.parallel ?? true;
    const last = batches.at(-1);
    if (safe && last && (tools.get(last[0]!.name)?.parallel ?? true)) last.push(call);
    else batches.push([call]);
  }
  return batches;
}

function truncate(output: ToolOutput): ToolOutput {
  if (typeof output !== 'string' || output.length <= MAX_RESULT_CHARS) return output;
  return `${output.slice(0, MAX_RESULT_CHARS)}\n[result truncated: ${output.length - MAX_RESULT_CHARS} more characters]`;
}

function outputText(output: ToolOutput): string {
  return typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

async function runOne(
  call: BetaToolUseBlock,
  tools: ReadonlyMap<string, RuntimeTool>,
  hooks: ToolCallHooks,
  signal: AbortSignal,
  invalidInput: string | undefined,
): Promise<BetaToolResultBlockParam> {
  const tool = tools.get(call.name);
  const summary = tool ? safeSummary(tool, hooks.redact(call.input)) : '';
  hooks.started(call, tool, summary);
  const started = Date.now();
  /** `shown` is what the user reads on the call's row, when the model's message says more than that. */
  const fail = (problem: string, shown = problem): BetaToolResultBlockParam => {
    const message = hooks.redact(problem);
    hooks.finished(call, false, oneLine(hooks.redact(shown), 160), Date.now() - started);
    return { type: 'tool_result', tool_use_id: call.id, content: message, is_error: true };
  };
  if (!tool?.run) {
    const names = [...tools.values()].filter((t) => t.run).map((t) => t.name);
    return fail(`Tool "${call.name}" is not available to this agent. Available tools: ${names.join(', ') || 'none'}.`);
  }
  if (invalidInput !== undefined) {
    return fail(`${tool.name}: the input was not valid JSON (${invalidInput}); nothing ran. Send the call again with the complete input as one valid JSON object.`);
  }
  try {
    const denial = await hooks.authorize(call, tool, summary);
    if (denial) return fail(denial.message, denial.summary);
    signal.throwIfAborted();
    const output = truncate(hooks.redact(await tool.run(call.input, { toolUseId: call.id, signal })));
    const text = outputText(output);
    hooks.finished(call, true, oneLine(tool.summarizeResult?.(text) ?? text, 160), Date.now() - started);
    return { type: 'tool_result', tool_use_id: call.id, content: output };
  } catch (error) {
    if (signal.aborted) return fail(`${call.name} was cancelled.`);
    // By name too: the agent host's tools proxy (another bundle) throws its own copy of the class.
    if (error instanceof ToolCallError || (error instanceof Error && error.name === 'ToolCallError')) return fail(error.message);
    return fail(`${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function safeSummary(tool: RuntimeTool, input: unknown): string {
  try {
    return tool.summarizeInput(input);
  } catch {
    return '';
  }
}

export async function executeToolCalls(
  calls: BetaToolUseBlock[],
  tools: ReadonlyMap<string, RuntimeTool>,
  hooks: ToolCallHooks,
  signal: AbortSignal,
  /** Calls whose input was not valid JSON, by id: answered with a tool error, never run. */
  invalidInputs: ReadonlyMap<string, string> = new Map(),
): Promise<BetaToolResultBlockParam[]> {
  const results: BetaToolResultBlockParam[] = [];
  for (const batch of partition(calls, tools)) {
    const running: Array<Promise<BetaToolResultBlockParam>> = [];
    for (const [i, call] of batch.entries()) {
      // Each call of a batch starts in a turn of the event loop of its own: a turn that calls a tool hundreds of times
      // at once (a lead starting 200 background agents) lets timers and I/O in between instead of holding the loop
      // for every start (~1 ms each). One loop turn costs microseconds.
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      running.push(runOne(call, tools, hooks, signal, invalidInputs.get(call.id)));
    }
    results.push(...(await Promise.all(running)));
  }
  return results;
}
