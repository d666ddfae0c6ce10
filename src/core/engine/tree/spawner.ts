import type { AgentDefinition } from '../../agents/definition';
import type { Settings } from '../../config';
import type { WorktreeManager } from '../../isolation';
import { newAgentId } from '../ids';
import type { PermissionMode } from '../../tools/permissions';
import { createAgentRun, firstLine, type AgentPlacement } from './agentFactory';
import type { AgentRun } from './agentRun';
import { BackgroundAgents, type BackgroundReservation } from './backgroundAgents';
import type { Budget } from './budget';
import type { ModelChoice } from '../loop/models';
import type { ResumeSource } from './resumeSource';
import { DEFAULT_AGENT, type SpawnInput, type Spawner } from '../tools/spawnTool';
import { Teammate } from '../team/teammate';
import { mayEdit, planTeammate, teammateIsolated, type TeammatePlan } from '../team/teammateSpawn';
import { checkSpawn } from '../tools/toolPool';
import { childCwd } from './workingDir';
import { isolate, reisolate } from './worktreeSteps';

/**
 * The engine's side of the spawn tool: checks a `Task` call,
 * places the child in its parent's tree (model, mode, working directory,
 * worktree, budget, the background cap) and hands it to the engine to run;
 * `resume` continues an ended agent of the same run as a child again. Every
 * refusal is a string the parent model gets back as a tool error.
 */

/** The catalog as the engine sees it: the current set, looked up at each spawn. */
export interface AgentLookup {
  readonly agents: readonly AgentDefinition[];
  find(name: string): AgentDefinition | undefined;
}

/** What the spawner needs from the engine that owns it. */
export interface SpawnerHost {
  readonly catalog: AgentLookup;
  settings(): Settings;
  readonly worktrees: WorktreeManager | undefined;
  /** Where an agent's transcript is written, for the `async_launched` answer. */
  outputFile(agentId: string): string | null;
  /** The mode a child runs under: its parent's, narrowed by its file or widened with consent. */
  /** `runId`: the tree asking, so a host can ask whoever started it. */
  permissionMode(definition: AgentDefinition, current: PermissionMode, signal: AbortSignal, runId: string): Promise<PermissionMode>;
  model(choice: ModelChoice): string;
  resumable(agentId: string): Promise<ResumeSource>;
  continued(source: ResumeSource, prompt: string, place: Omit<AgentPlacement, 'id' | 'definition' | 'model' | 'cwd' | 'prompt' | 'description' | 'continued'>): AgentRun;
  /** Starts the child's query loop. */
  launch(run: AgentRun): void;
  /** Whether a folder is in a git repository (where a teammate gets a worktree of its own by default). */
  inRepository(cwd: string): Promise<boolean>;
}

/** The spawn call's budget in the engine's terms, or the refusal when the parent has nothing left to give. */
function spawnBudget(parent: AgentRun, input: SpawnInput): Budget | string | undefined {
  if (!input.budget) return undefined;
  const left = parent.budget.remaining();
  if (left.tokens === 0 || left.costUsd === 0) return 'No budget left to give a subagent: your own budget is spent.';
  return { maxTokens: input.budget.max_tokens, maxCostUsd: input.budget.max_cost_usd };
}

export class AgentSpawner implements Spawner {
  readonly #host: SpawnerHost;
  readonly #background = new BackgroundAgents();

  constructor(host: SpawnerHost) {
    this.#host = host;
  }

  spawnable(parent: AgentRun): AgentDefinition[] {
    const disabled = this.#host.settings().disabledAgents;
    return this.#host.catalog.agents.filter(
      (a) =>
        !disabled.includes(a.name) &&
        a.modelInvocable !== false &&
        checkSpawn({ target: a.name, available: [a.name], disabled: [], parentName: parent.agentName, parentSpawns: parent.spawns }) === null,
    );
  }

  outputFile(agentId: string): string | null {
    return this.#host.outputFile(agentId);
  }

  async spawn(parent: AgentRun, input: SpawnInput, toolUseId: string): Promise<AgentRun | string> {
    const settings = this.#host.settings();
    if (input.isolation === 'worktree' && input.cwd) return 'isolation and cwd cannot be used together: an isolated agent works in the worktree created for it.';
    const budget = spawnBudget(parent, input);
    if (typeof budget === 'string') return budget;
    if (input.resume) return this.#spawnResume(parent, input, toolUseId, settings, budget);
    const { catalog } = this.#host;
    const team = parent.tree.team;
    const mate = input.name !== undefined ? planTeammate(team, input, { maxTeammates: settings['teams.maxTeammates'], live: team.live }) : null;
    if (typeof mate === 'string') return mate;
    const requested = mate?.agent ?? (input.subagent_type?.trim() || DEFAULT_AGENT);
    // A plugin agent's bare name (`explore` for `sec:explore`) finds it when the name is its alone.
    const name = catalog.find(requested)?.name ?? requested;
    const refusal = checkSpawn({
      target: name,
      available: catalog.agents.map((a) => a.name),
      disabled: settings.disabledAgents,
      parentName: parent.agentName,
      // A member the team file declares is the user's choice: its lead may spawn it whatever the lead's own file allows.
      parentSpawns: mate?.declared ? '*' : parent.spawns,
    });
    if (refusal) return refusal;
    const definition = catalog.find(name)!;
    // Copilot's disable-model-invocation (or infer: false), opencode's primary agents: only a person may start it.
    if (definition.modelInvocable === false) {
      const why = definition.format === 'opencode' || definition.format === 'kilo' ? 'mode: primary' : 'disable-model-invocation';
      return `Agent "${name}" can only be started by the user (${why} in ${definition.filePath || 'its definition'}), not by another agent.`;
    }

    let cwd = parent.cwd;
    if (input.cwd) {
      const checked = await childCwd(input.cwd, parent);
      if (!checked.ok) return checked.refusal;
      cwd = checked.cwd;
    }
    // Asked before the background cap is checked: the check and the child's place under it must not be split by a wait.
    const permissionMode = await this.#host.permissionMode(definition, parent.permissionMode, parent.signal, parent.tree.runId);
    const isolated = mate
      ? await this.#teammateIsolated(mate, definition, permissionMode, parent, Boolean(input.cwd), cwd)
      : input.isolation === 'worktree' || definition.isolation === 'worktree';
    if (typeof isolated === 'string') return isolated;
    if (isolated && input.cwd) return 'This agent always runs isolated in a worktree (isolation: worktree in its definition), so it cannot be given a cwd.';
    if (!isolated && input.base_ref) return 'base_ref applies to an isolated agent only: give isolation: "worktree" too.';
    if (!mate && input.isolation === 'none' && definition.isolation === 'worktree') return `Agent "${name}" always runs in a worktree of its own (isolation: worktree in its file).`;
    const baseRef = input.base_ref ?? definition.baseRef ?? settings['worktrees.baseRef'];

    // A teammate works in the background, counted among the team's members, not against the background cap.
    const background = mate !== null || (Boolean(input.run_in_background || definition.background) && !definition.blocking);
    const place = background && !mate ? this.#background.reserve(settings.maxBackgroundAgents) : null;
    if (typeof place === 'string') return place;

    const child = createAgentRun({
      id: newAgentId(),
      definition,
      parent,
      parentToolUseId: toolUseId,
      tree: parent.tree,
      settings,
      model: this.#host.model({ requested: mate ? mate.model : input.model, definition: definition.model, parent: parent.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      cwd,
      prompt: mate?.prompt ?? input.prompt,
      description: input.description || firstLine(input.prompt),
      background,
      permissionMode,
      schema: input.schema,
      budget,
      teammate: mate ? new Teammate(mate.name) : null,
    });
    // On the roster before its worktree is made: a second spawn of the same name meanwhile is refused.
    if (mate) team.register({ name: mate.name, agentId: child.id, leadId: parent.id });
    const started = await this.#start(parent, child, place, isolated ? () => isolate(this.#host.worktrees, child, baseRef) : null);
    if (mate && typeof started === 'string') team.unregister(child.id);
    if (mate && typeof started !== 'string') parent.onLead?.();
    return started;
  }

  #teammateIsolated(mate: TeammatePlan, definition: AgentDefinition, mode: PermissionMode, parent: AgentRun, cwdGiven: boolean, cwd: string): Promise<boolean | string> {
    const settings = this.#host.settings();
    return teammateIsolated(mate, definition, {
      teamDefault: parent.tree.team.info?.isolation ?? settings['teams.isolation'],
      mayEdit: !parent.planMode && mayEdit(definition, mode, parent.depth + 1, settings.maxDepth),
      cwdGiven,
      inRepository: () => (this.#host.worktrees ? this.#host.inRepository(cwd) : Promise.resolve(false)),
    });
  }

  async #spawnResume(parent: AgentRun, input: SpawnInput, toolUseId: string, settings: Settings, budget: Budget | undefined): Promise<AgentRun | string> {
    let source: ResumeSource;
    try {
      source = await this.#host.resumable(input.resume!);
    } catch (error) {
      return (error as Error).message;
    }
    if (source.runId !== parent.tree.runId) return `Agent ${source.agentId} belongs to another run; you can resume only agents of this run.`;
    if (source.agentId === parent.id) return 'An agent cannot resume itself.';
    const permissionMode = await this.#host.permissionMode(source.definition, parent.permissionMode, parent.signal, parent.tree.runId);
    const background = Boolean(input.run_in_background);
    const place = background ? this.#background.reserve(settings.maxBackgroundAgents) : null;
    if (typeof place === 'string') return place;
    const child = this.#host.continued(source, input.prompt, { parent, parentToolUseId: toolUseId, tree: parent.tree, settings, background, permissionMode, budget });
    return this.#start(parent, child, place, () => reisolate(this.#host.worktrees, child));
  }

  /**
   * Prepares the child (its worktree), then launches it under its parent. A
   * background place is held from before the preparation until the child
   * ends, and given back at once when the preparation fails.
   */
  async #start(parent: AgentRun, child: AgentRun, place: BackgroundReservation | null, prepare: (() => Promise<string | null>) | null): Promise<AgentRun | string> {
    const failure = prepare ? await prepare() : null;
    if (failure) {
      place?.release();
      return failure;
    }
    place?.holdUntil(child.done);
    parent.children.add(child);
    this.#host.launch(child);
    return child;
  }
}
