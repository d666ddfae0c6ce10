import * as z from 'zod';
import { builtinTool, SPAWN_TOOL } from '../../../protocol/tools';
import type { AgentDefinition } from '../../agents/definition';
import { zodValidator } from '../../tools/inputValidation';
import { field, oneLine, ToolCallError, type RuntimeTool } from '../../tools/runtimeTool';
import type { AgentResult, AgentRun } from '../tree/agentRun';

/**
 * The spawn tool `Task`: the parent model starts a subagent with it.
 * Each spawn is checked first — a refusal is a tool error and no run
 * starts. A foreground spawn returns when the child ends; a background one
 * returns `async_launched` at once.
 */

export const spawnInputSchema = z
  .object({
    description: z.string().describe('A short (3-5 word) description of the task, shown to the user.'),
    prompt: z.string().min(1).describe('The complete task. The agent sees nothing of your conversation: include all context it needs and say whether it should change files or only research.'),
    subagent_type: z.string().optional().describe('Which agent to run (exact name). Defaults to general-purpose.'),
    model: z.string().optional().describe('Model alias (sonnet, opus, haiku) or id; defaults to the agent\'s own model.'),
    run_in_background: z.boolean().optional().describe('Return at once and let the agent work in the background; collect its result with TaskOutput.'),
    resume: z.string().optional().describe('Agent id of an agent you ran earlier: continue it, with its full previous conversation, using prompt as the follow-up.'),
    name: z.string().optional().describe('Makes the agent a teammate of your team, addressable by this name (SendMessage to it); see the notes.'),
    team_name: z.string().optional().describe('Accepted for agent files written for Claude Code; a run has one team, yours.'),
    isolation: z.enum(['worktree', 'none']).optional().describe('"worktree": the agent works on its own git worktree and branch; its changes stay there for the user to review. "none": a teammate works in your folder rather than a worktree of its own.'),
    base_ref: z.string().min(1).optional().describe('With isolation: where the worktree starts. "HEAD" (default): the current commit plus the user\'s uncommitted changes; or a branch, tag or commit name.'),
    cwd: z.string().optional().describe('Absolute working directory for the agent (not with isolation).'),
    schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema the agent\'s result must follow.'),
    budget: z
      .strictObject({
        max_tokens: z.number().int().positive().optional().describe('Most tokens (input, output and cache, summed over its turns) the agent and the agents it starts may use.'),
        max_cost_usd: z.number().positive().optional().describe('Most estimated cost in USD the agent and the agents it starts may spend.'),
      })
      .refine((b) => b.max_tokens !== undefined || b.max_cost_usd !== undefined, 'give max_tokens, max_cost_usd or both')
      .optional()
      .describe('A spending limit for this agent. Its spending also counts against your own budget, and a limit above what you have left is lowered to it. An agent that reaches its budget stops and you get an error naming the budget, with its output so far.'),
  });
export type SpawnInput = z.infer<typeof spawnInputSchema>;
const parseSpawnInput = zodValidator(SPAWN_TOOL, spawnInputSchema);

export const DEFAULT_AGENT = 'general-purpose';

/** What the engine does for the spawn tool. */
export interface Spawner {
  /** Checks and starts a child; a string is the refusal message. */
  spawn(parent: AgentRun, input: SpawnInput, toolUseId: string): Promise<AgentRun | string>;
  /** Agents the parent may spawn, for the tool's description. */
  spawnable(parent: AgentRun): AgentDefinition[];
  outputFile(agentId: string): string | null;
}

/**
 * The agent list goes into every request of every agent that can spawn, so it
 * is kept to a budget: with many agents each description is cut shorter.
 */
const LISTING_BUDGET_CHARS = 12_000;

function describeTool(agents: AgentDefinition[]): string {
  const perAgent = Math.max(80, Math.min(300, Math.floor(LISTING_BUDGET_CHARS / Math.max(1, agents.length)) - 40));
  const list = agents
    .map((a) => `- ${a.name}: ${oneLine(a.description, perAgent)}${a.tools && perAgent >= 200 ? ` (tools: ${a.tools.join(', ') || 'none'})` : ''}`)
    .join('\n');
  return [
    'Launch a subagent: an independent agent with its own tools and context that works on one task and reports back once.',
    `Available agents:\n${list || '(none)'}`,
    'Notes: give a complete, self-contained prompt; several Task calls in one message run in parallel; with run_in_background the call returns at once and you collect the result with TaskOutput (or stop it with TaskStop), and SendMessage redirects it while it works; resume continues an agent you ran before with its full context; budget caps what one agent (with its own subagents) may spend.',
    'Teams: with name, the agent becomes your teammate. The call returns at once; the teammate works in the background (in a worktree of its own when it may edit), shares the run\'s task list (TaskCreate, TaskList, TaskGet, TaskUpdate), and goes idle when its turn ends instead of ending: you are told, and a SendMessage to its name wakes it. It ends when you end (or TaskStop it).',
  ].join('\n\n');
}

/** The JSON the parent model gets back for a finished child. */
export function resultPayload(result: AgentResult): Record<string, unknown> {
  return {
    status: result.status,
    agentId: result.agentId,
    output: result.structuredOutput ?? result.output,
    usage: {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      cache_read_input_tokens: result.usage.cacheReadTokens,
      cache_creation_input_tokens: result.usage.cacheWriteTokens,
    },
    ...(result.worktree ? { worktree: result.worktree } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
}

export function spawnTool(parent: AgentRun, spawner: Spawner): RuntimeTool {
  return {
    ...builtinTool(SPAWN_TOOL),
    definition: { name: SPAWN_TOOL, description: describeTool(spawner.spawnable(parent)), input_schema: z.toJSONSchema(spawnInputSchema) as never },
    summarizeInput: (input) => `${field(input, 'subagent_type') ?? DEFAULT_AGENT}: ${field(input, 'description') ?? ''}`,
    summarizeResult: (output) => {
      try {
        const parsed = JSON.parse(output) as { status?: string; agentId?: string; name?: string };
        return `${parsed.status ?? 'done'}${parsed.name ? ` · ${parsed.name}` : ''}${parsed.agentId ? ` · ${parsed.agentId}` : ''}`;
      } catch {
        return oneLine(output);
      }
    },
    run: async (raw, context) => {
      const child = await spawner.spawn(parent, parseSpawnInput(raw), context.toolUseId);
      if (typeof child === 'string') throw new ToolCallError(child);
      if (child.teammate) {
        return JSON.stringify({
          status: 'teammate_spawned',
          agentId: child.id,
          name: child.teammate.name,
          ...(child.isolation ? { worktree: { path: child.isolation.path, branch: child.isolation.branch } } : {}),
          note: `${child.teammate.name} works in the background; you are told when it goes idle. SendMessage to "${child.teammate.name}" wakes it.`,
        });
      }
      if (child.background) {
        return JSON.stringify({ status: 'async_launched', agentId: child.id, outputFile: spawner.outputFile(child.id) });
      }
      // Blocked on its child, the parent lends it its place under the concurrency limit.
      const result = await parent.slot.whileWaiting(() => child.done);
      if (result.status !== 'completed') {
        const partial = result.output ? `\nOutput so far:\n${result.output}` : '';
        throw new ToolCallError(`Agent "${result.agentName}" (${result.agentId}) ${result.status === 'budget_exceeded' ? 'stopped at its budget' : result.status}: ${result.error ?? 'no details'}${partial}`);
      }
      return JSON.stringify(resultPayload(result));
    },
  };
}
