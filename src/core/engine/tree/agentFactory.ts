import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { Usage } from '../../../protocol/runEvents';
import type { AgentDefinition } from '../../agents/definition';
import type { Settings } from '../../config';
import type { PermissionMode } from '../../tools/permissions';
import { AgentRun, type TreeContext } from './agentRun';
import { BudgetTracker, type Budget } from './budget';
import { CancelledError } from '../errors';
import { Semaphore } from './limiter';
import { effectiveSchema } from '../loop/structuredOutput';
import type { McpHost } from '../../mcp/host';
import type { Team } from '../team/team';
import type { Teammate } from '../team/teammate';

/**
 * How an agent's run is put together, the same way whether it is a root run,
 * a spawned child or a follow-up: plan mode and permission mode, output
 * schema and turn limit all follow one set of rules here.
 */

/** A fresh run tree context: its own abort, concurrency limiter, budget and MCP servers; the run's team, whichever context continues the run. */
export function newTree(runId: string, settings: Settings, budget: Budget | undefined, signal: AbortSignal | undefined, team: Team, mcp?: McpHost, runContext?: unknown): TreeContext {
  const controller = new AbortController();
  if (signal) {
    const forward = () => controller.abort(new CancelledError());
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
  }
  return {
    runId,
    controller,
    limiter: new Semaphore(settings.maxConcurrency),
    // Per limit: a request that sets only a token budget keeps the cost budget of the settings.
    budget: new BudgetTracker({ maxTokens: budget?.maxTokens ?? settings['budget.maxTokens'], maxCostUsd: budget?.maxCostUsd ?? settings['budget.maxCostUsd'] }, controller),
    mcp: mcp?.tree() ?? null,
    runContext,
    team,
  };
}

export interface AgentPlacement {
  id: string;
  definition: AgentDefinition;
  parent: AgentRun | null;
  /** For a continued agent whose parent has ended: that parent's id. */
  reportsTo?: string | null;
  parentToolUseId: string | null;
  tree: TreeContext;
  settings: Settings;
  model: string;
  cwd: string;
  prompt: string;
  description: string;
  background: boolean;
  /** The mode the agent runs under, its file's own already weighed in (ModeConsents.resolve). */
  permissionMode: PermissionMode;
  /** The spawn call's (or root request's) schema: first in precedence. */
  schema?: object | null;
  /** The spawn call's own budget, inside its parent's. */
  budget?: Budget;
  /** For a follow-up: the earlier conversation (how much of it is on disk) and counters, and what to tell the user as it starts. */
  continued?: { messages: BetaMessageParam[]; persisted?: number; usage: Usage; turns: number; notices?: string[] };
  /** For a teammate: its name and life between turns. */
  teammate?: Teammate | null;
}

export function createAgentRun(p: AgentPlacement): AgentRun {
  const { definition, parent, settings } = p;
  // Plan mode spreads down the tree.
  const planMode = p.permissionMode === 'plan' || Boolean(parent?.planMode);
  const priorTurns = p.continued?.turns ?? 0;
  return new AgentRun({
    id: p.id,
    parent,
    reportsTo: p.reportsTo,
    parentToolUseId: p.parentToolUseId,
    tree: p.tree,
    definition,
    model: p.model,
    cwd: p.cwd,
    description: p.description,
    prompt: p.prompt,
    background: p.background,
    permissionMode: planMode ? 'plan' : p.permissionMode,
    planMode,
    outputSchema: effectiveSchema(p.schema, definition.output, parent?.outputSchema),
    thinking: definition.thinkingLevel,
    maxTurns: priorTurns + (definition.maxTurns ?? settings.maxTurns),
    budget: p.budget,
    teammate: p.teammate ?? null,
    history: p.continued?.messages,
    persisted: p.continued?.persisted,
    notices: p.continued?.notices,
    priorUsage: p.continued?.usage,
    priorTurns: p.continued?.turns,
  });
}

/** A one-line description from a prompt, for agents started without one. */
export function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
