import { BUILTIN_TOOLS, LISTED_TOOLS } from '../../../protocol/tools';
import type { Settings } from '../../config';
import { createFileTools, FILE_TOOL_NAMES } from '../../tools/fileTools';
import { todoWriteTool, webFetchTool, webSearchTool } from '../../tools/planningTools';
import type { RuntimeTool } from '../../tools/runtimeTool';
import type { AgentRun } from '../tree/agentRun';
import { sendMessageTool, type Messaging } from './sendMessageTool';
import { spawnTool, type Spawner } from './spawnTool';
import { structuredOutputTool, type StructuredOutputSlot } from '../loop/structuredOutput';
import { taskOutputTool, taskStopTool } from './taskTools';
import { taskCreateTool, taskGetTool, taskListTool, taskUpdateTool, type TaskListContext } from '../team/taskListTools';
import { computeToolPool } from './toolPool';

const ORDER = new Map<string, number>(BUILTIN_TOOLS.map((spec, i) => [spec.name, i]));

/** What building an agent's tools needs besides the agent. */
export interface ToolsetHost {
  spawner: Spawner;
  messaging: Messaging;
  /** The run's task list as this agent acts on it. */
  taskList: TaskListContext;
}

/** The agent's place in its run's team, as the tool pool weighs it. */
function teamRole(run: AgentRun): 'lead' | 'member' | null {
  if (run.teammate) return 'member';
  return run.tree.team.leads(run.id) ? 'lead' : null;
}

/** The runtime tools of `names` (canonical), built for the agent; file tools share one factory. */
function instantiate(run: AgentRun, names: ReadonlySet<string>, host: ToolsetHost): RuntimeTool[] {
  const tools: RuntimeTool[] = [];
  if (names.has('Task')) tools.push(spawnTool(run, host.spawner));
  if (names.has('TaskOutput')) tools.push(taskOutputTool(run));
  if (names.has('TaskStop')) tools.push(taskStopTool(run));
  if (names.has('SendMessage')) tools.push(sendMessageTool(run, host.messaging));
  if (names.has('TaskCreate')) tools.push(taskCreateTool(host.taskList));
  if (names.has('TaskList')) tools.push(taskListTool(host.taskList));
  if (names.has('TaskGet')) tools.push(taskGetTool(host.taskList));
  if (names.has('TaskUpdate')) tools.push(taskUpdateTool(host.taskList));
  if (FILE_TOOL_NAMES.some((n) => names.has(n))) tools.push(...createFileTools(run.cwd).filter((t) => names.has(t.name)));
  if (names.has('TodoWrite')) tools.push(todoWriteTool());
  if (names.has('WebSearch')) tools.push(webSearchTool());
  if (names.has('WebFetch')) tools.push(webFetchTool());
  return tools.sort((a, b) => ORDER.get(a.name)! - ORDER.get(b.name)!);
}

function pool(run: AgentRun, settings: Settings, role: 'lead' | 'member' | null) {
  return computeToolPool({ definition: run.definition, runtime: LISTED_TOOLS, depth: run.depth, maxDepth: settings.maxDepth, mode: run.permissionMode, team: role });
}

/**
 * The tools of one agent, keyed by the name the model calls:
 * its pool, built for its working directory, plus the result tool when an
 * output schema is in effect. Also sets the agent's effective spawns policy.
 */
export function buildTools(run: AgentRun, settings: Settings, structured: StructuredOutputSlot | null, host: ToolsetHost): Map<string, RuntimeTool> {
  const { tools: names, spawns } = pool(run, settings, teamRole(run));
  run.spawns = spawns;
  const tools = instantiate(run, new Set(names), host);
  if (structured && run.outputSchema) tools.push(structuredOutputTool(run.outputSchema, structured));
  // The model calls server tools by their API name (web_search), everything else by ours.
  return new Map(tools.map((t) => [t.apiName ?? t.name, t]));
}

/**
 * An agent that has just spawned its first teammate leads a team: it gets
 * the team's tools it lacked (the task list, SendMessage), from its next
 * turn on. Added at the end, so the requests' cached prefix stays.
 */
export function addTeamTools(run: AgentRun, settings: Settings, tools: Map<string, RuntimeTool>, host: ToolsetHost): void {
  const missing = new Set(pool(run, settings, 'lead').tools.filter((name) => ![...tools.values()].some((t) => t.name === name)));
  for (const tool of instantiate(run, missing, host)) tools.set(tool.apiName ?? tool.name, tool);
}
