import { BUILTIN_TOOLS, LISTED_TOOLS } from '../../protocol/tools';
import type { Settings } from '../config';
import { createFileTools, FILE_TOOL_NAMES } from '../tools/fileTools';
import { todoWriteTool, webFetchTool, webSearchTool } from '../tools/planningTools';
import type { RuntimeTool } from '../tools/runtimeTool';
import type { AgentRun } from './agentRun';
import { sendMessageTool, type Messaging } from './sendMessageTool';
import { spawnTool, type Spawner } from './spawnTool';
import { structuredOutputTool, type StructuredOutputSlot } from './structuredOutput';
import { taskOutputTool, taskStopTool } from './taskTools';
import { computeToolPool } from './toolPool';

const ORDER = new Map<string, number>(BUILTIN_TOOLS.map((spec, i) => [spec.name, i]));

/**
 * The tools of one agent, keyed by the name the model calls:
 * its pool, built for its working directory, plus the result tool when an
 * output schema is in effect. Also sets the agent's effective spawns policy.
 */
export function buildTools(run: AgentRun, settings: Settings, structured: StructuredOutputSlot | null, spawner: Spawner, messaging: Messaging): Map<string, RuntimeTool> {
  const pool = computeToolPool({ definition: run.definition, runtime: LISTED_TOOLS, depth: run.depth, maxDepth: settings.maxDepth, mode: run.permissionMode });
  run.spawns = pool.spawns;
  const wanted = new Set(pool.tools);
  const tools: RuntimeTool[] = [];
  if (wanted.has('Task')) tools.push(spawnTool(run, spawner));
  if (wanted.has('TaskOutput')) tools.push(taskOutputTool(run));
  if (wanted.has('TaskStop')) tools.push(taskStopTool(run));
  if (wanted.has('SendMessage')) tools.push(sendMessageTool(run, messaging));
  if (FILE_TOOL_NAMES.some((n) => wanted.has(n))) tools.push(...createFileTools(run.cwd).filter((t) => wanted.has(t.name)));
  if (wanted.has('TodoWrite')) tools.push(todoWriteTool());
  if (wanted.has('WebSearch')) tools.push(webSearchTool());
  if (wanted.has('WebFetch')) tools.push(webFetchTool());
  tools.sort((a, b) => ORDER.get(a.name)! - ORDER.get(b.name)!);
  if (structured && run.outputSchema) tools.push(structuredOutputTool(run.outputSchema, structured));
  // The model calls server tools by their API name (web_search), everything else by ours.
  return new Map(tools.map((t) => [t.apiName ?? t.name, t]));
}
