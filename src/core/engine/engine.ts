import { stat } from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { emptyUsage, type RunEvent, type Usage } from '../../protocol/runEvents';
import type { AgentDefinition } from '../agents/definition';
import type { Settings } from '../config';
import { newAgentId } from '../runs/ids';
import { createFileTools } from '../tools/fileTools';
import { PermissionGate, type PermissionMode } from '../tools/permissions';
import { todoWriteTool, webFetchTool, webSearchTool } from '../tools/planningTools';
import type { RuntimeTool } from '../tools/runtimeTool';
import type { WorktreeManager } from '../isolation';
import type { AgentArchive } from './archive';
import { MAX_STOP_HOOK_ROUNDS, type LifecycleHooks, type SubagentInfo } from './lifecycleHooks';
import { AgentRun, type AgentResult, type TreeContext } from './agentRun';
import { BudgetTracker, type Budget } from './budget';
import { CancelledError, EngineError } from './errors';
import { Semaphore } from './limiter';
import { resolveModel } from './models';
import { runQueryLoop, type EmitEvent, type LoopOutcome } from './queryLoop';
import { buildSystemPrompt, promptEnvironment } from './systemPrompt';
import { DEFAULT_AGENT, spawnTool, type SpawnInput, type Spawner } from './spawnTool';
import { effectiveSchema, structuredOutputTool, type StructuredOutputSlot } from './structuredOutput';
import { completionNotice, taskOutputTool, taskStopTool } from './taskTools';
import { checkSpawn, computeToolPool } from './toolPool';

/**
 * The subagent engine (S3): runs agent trees on the Anthropic SDK. Every
 * agent is its own query loop with its own system prompt, tool pool and
 * model; the spawn tool starts nested agents under the guards of S3.3–S3.4.
 * Everything an agent does is reported as typed RunEvents, which the
 * RunStore folds into the snapshots every surface renders.
 */

/** The catalog as the engine sees it: the current set, looked up at each spawn (S2.4). */
export interface AgentLookup {
  readonly agents: readonly AgentDefinition[];
  find(name: string): AgentDefinition | undefined;
}

export interface EngineOptions {
  client: Anthropic;
  catalog: AgentLookup;
  /** Read at every run and spawn, so setting changes apply to the next one. */
  settings: () => Settings;
  gate?: PermissionGate;
  maxTokens?: number;
  /** Turn-level retries of streams that break mid-way (S3.10). */
  retry?: { maxAttempts: number; baseDelayMs: number };
  /** Keeps transcripts and finds ended agents after a restart (the run history). */
  archive?: AgentArchive;
  /** SubagentStart / SubagentStop hooks (S4.5). */
  hooks?: LifecycleHooks;
  /** Git worktrees for isolated agents (S5); without it, isolation is refused. */
  worktrees?: WorktreeManager;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export interface RunRequest {
  agent: string;
  prompt: string;
  cwd: string;
  model?: string;
  /** Shown in every surface; defaults to the prompt's first line. */
  description?: string;
  budget?: Budget;
  schema?: object | null;
  permissionMode?: PermissionMode;
  /** Run in a git worktree of its own (also when the definition says `isolation: worktree`). */
  isolation?: 'worktree';
  signal?: AbortSignal;
}

/** The order tools appear in every request: stable, so the prompt cache keeps hitting. */
const RUNTIME_TOOL_ORDER = ['Task', 'TaskOutput', 'TaskStop', 'Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebSearch', 'WebFetch'];
/** Runtime tools by whether they only read: what the tool pool needs before any tool object exists. */
const READ_ONLY = new Set(['Task', 'TaskOutput', 'TaskStop', 'Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebSearch', 'WebFetch']);
const RUNTIME_TOOLS = RUNTIME_TOOL_ORDER.map((name) => ({ name, readOnly: READ_ONLY.has(name) }));
/** Ended agents kept in memory for resume; older ones come back from persistence. */
const ENDED_AGENTS_KEPT = 200;

export class Engine implements Spawner {
  readonly #options: EngineOptions;
  readonly #gate: PermissionGate;
  readonly #listeners = new Set<(event: RunEvent) => void>();
  readonly #agents = new Map<string, AgentRun>();

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#gate = options.gate ?? new PermissionGate(null);
  }

  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Agents currently running or queued. */
  get running(): AgentRun[] {
    return [...this.#agents.values()].filter((a) => !a.ended);
  }

  find(agentId: string): AgentRun | undefined {
    return this.#agents.get(agentId);
  }

  /** Starts a root agent; throws EngineError for an unknown agent or an impossible isolation. */
  async start(request: RunRequest): Promise<AgentRun> {
    const settings = this.#options.settings();
    const definition = this.#options.catalog.find(request.agent);
    if (!definition) {
      throw new EngineError(`Unknown agent "${request.agent}". Available: ${this.#options.catalog.agents.map((a) => a.name).join(', ') || 'none'}`);
    }
    const id = newAgentId();
    const tree = this.#newTree(id, settings, request.budget, request.signal);
    const planMode = definition.permissionMode === 'plan' || request.permissionMode === 'plan';
    const run = new AgentRun({
      id,
      parent: null,
      parentToolUseId: null,
      tree,
      definition,
      model: resolveModel({ requested: request.model, definition: definition.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      cwd: path.resolve(request.cwd),
      description: request.description ?? firstLine(request.prompt),
      prompt: request.prompt,
      background: false,
      permissionMode: planMode ? 'plan' : (definition.permissionMode ?? request.permissionMode ?? settings.permissionMode),
      planMode,
      outputSchema: effectiveSchema(request.schema, definition.output),
      thinking: definition.thinkingLevel,
      maxTurns: definition.maxTurns ?? settings.maxTurns,
    });
    if (request.isolation === 'worktree' || definition.isolation === 'worktree') {
      const failure = await this.#isolate(run);
      if (failure) throw new EngineError(failure);
    }
    this.#launch(run);
    return run;
  }

  async run(request: RunRequest): Promise<AgentResult> {
    return (await this.start(request)).done;
  }

  /**
   * Gives `run` its own worktree before it starts (S5.1): created now, so a
   * failure (not a git repository, …) is an error for whoever started it and
   * no run begins. Returns the failure message, or null.
   */
  async #isolate(run: AgentRun): Promise<string | null> {
    const worktrees = this.#options.worktrees;
    if (!worktrees) return 'Worktree isolation is not available here (no worktree storage is configured).';
    try {
      const record = await worktrees.create({ cwd: run.cwd, agentName: run.agentName, agentId: run.id });
      run.isolation = { path: record.path, branch: record.branch, baseCommit: record.baseCommit, originalCwd: run.cwd };
      run.cwd = record.cwd;
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** A follow-up to an isolated agent works in its worktree again (reopened if it was finished). */
  async #reisolate(run: AgentRun): Promise<string | null> {
    const worktrees = this.#options.worktrees;
    if (!worktrees) return null;
    const known = worktrees.get(run.id) ?? (await worktrees.list()).find((r) => r.agentId === run.id);
    if (!known) return null;
    if (known.state === 'discarded') return `Agent ${run.id}'s worktree was discarded, so its work is gone; start a new run instead.`;
    try {
      const record = await worktrees.reopen(run.id);
      run.isolation = { path: record.path, branch: record.branch, baseCommit: record.baseCommit, originalCwd: record.repoRoot };
      run.cwd = record.cwd;
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Ends an isolated agent's work on its branch (S5.2); a failure keeps the worktree, never loses work. */
  async #settleWorktree(run: AgentRun): Promise<void> {
    if (!run.isolation || !this.#options.worktrees) return;
    try {
      run.worktree = await this.#options.worktrees.finish(run.id, { commitMessage: `subagents: ${run.agentName}: ${run.description}` });
    } catch (error) {
      this.#options.log?.('error', `Could not finish the worktree of agent ${run.id} (${run.isolation.path}); it is kept as it is: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Continues an ended agent with its whole conversation (S4.3): the
   * sidebar's "Send follow-up", `subagents resume`. The agent keeps its id
   * and its place in its run tree; it runs as the root of a new tree context
   * (its own budget and concurrency), since its parent has ended.
   */
  async resume(agentId: string, prompt: string, options: { signal?: AbortSignal; budget?: Budget; permissionMode?: PermissionMode } = {}): Promise<AgentRun> {
    const source = await this.#resumable(agentId);
    const settings = this.#options.settings();
    const tree = this.#newTree(source.runId, settings, options.budget, options.signal);
    const run = this.#continued(source, prompt, { parent: null, parentToolUseId: null, tree, settings, background: false, permissionMode: options.permissionMode });
    const failure = await this.#reisolate(run);
    if (failure) throw new EngineError(failure);
    this.#launch(run);
    return run;
  }

  #newTree(runId: string, settings: Settings, budget: Budget | undefined, signal: AbortSignal | undefined): TreeContext {
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
      budget: new BudgetTracker(budget ?? { maxTokens: settings['budget.maxTokens'], maxCostUsd: settings['budget.maxCostUsd'] }, (reason) => controller.abort(reason)),
    };
  }

  /** Finds an ended agent in memory or in the archive; throws EngineError with what to do otherwise. */
  async #resumable(agentId: string): Promise<ResumeSource> {
    const live = this.#agents.get(agentId);
    if (live && !live.ended) throw new EngineError(`Agent ${agentId} is still running; wait for it to finish, or stop it, before sending a follow-up.`);
    if (live) {
      return { agentId, runId: live.tree.runId, definition: live.definition, model: live.model, cwd: live.cwd, description: live.description, messages: live.messages, usage: live.usage, turns: live.turns };
    }
    const archived = await this.#options.archive?.load(agentId);
    if (archived === 'expired') {
      throw new EngineError(`Agent ${agentId} has expired: finished runs are kept for ${this.#options.archive!.retentionDays} days (subagents.history.retentionDays).`);
    }
    if (!archived) throw new EngineError(`No agent with id "${agentId}" in the run history.`);
    const { node, messages } = archived;
    const definition = this.#options.catalog.find(node.agentName);
    if (!definition) throw new EngineError(`The agent "${node.agentName}" that ran as ${agentId} is no longer defined; restore its file to continue it.`);
    const history = messages.length ? messages : [{ role: 'user' as const, content: [{ type: 'text' as const, text: node.prompt }] }];
    return { agentId, runId: node.runId, definition, model: node.model, cwd: node.cwd, description: node.description, messages: history, usage: node.usage, turns: node.turns };
  }

  #continued(
    source: ResumeSource,
    prompt: string,
    place: { parent: AgentRun | null; parentToolUseId: string | null; tree: TreeContext; settings: Settings; background: boolean; permissionMode?: PermissionMode },
  ): AgentRun {
    const { definition } = source;
    const { parent, parentToolUseId, tree, settings, background } = place;
    const planMode = definition.permissionMode === 'plan' || Boolean(parent?.planMode) || place.permissionMode === 'plan';
    return new AgentRun({
      id: source.agentId,
      parent,
      parentToolUseId,
      tree,
      definition,
      model: source.model,
      cwd: source.cwd,
      description: source.description,
      prompt,
      background,
      permissionMode: planMode ? 'plan' : (definition.permissionMode ?? place.permissionMode ?? parent?.permissionMode ?? settings.permissionMode),
      planMode,
      outputSchema: effectiveSchema(definition.output, parent?.outputSchema),
      thinking: definition.thinkingLevel,
      maxTurns: source.turns + (definition.maxTurns ?? settings.maxTurns),
      history: source.messages,
      priorUsage: source.usage,
      priorTurns: source.turns,
    });
  }

  /** Stops an agent and its whole subtree (S3.11). */
  cancel(agentId: string, reason = 'Cancelled by the user.'): boolean {
    const run = this.#agents.get(agentId);
    if (!run || run.ended) return false;
    run.controller.abort(new CancelledError(reason));
    return true;
  }

  cancelAll(reason = 'Cancelled by the user.'): number {
    const roots = this.running.filter((r) => !r.parent || r.parent.ended);
    for (const root of roots) root.controller.abort(new CancelledError(reason));
    return roots.length;
  }

  // ---- Spawner (the Task tool) --------------------------------------------

  spawnable(parent: AgentRun): AgentDefinition[] {
    const disabled = this.#options.settings().disabledAgents;
    return this.#options.catalog.agents.filter(
      (a) => !disabled.includes(a.name) && checkSpawn({ target: a.name, available: [a.name], disabled: [], parentName: parent.agentName, parentSpawns: parent.spawns }) === null,
    );
  }

  outputFile(agentId: string): string | null {
    return this.#options.archive?.transcriptPath(agentId) ?? null;
  }

  async whileWaiting<T>(parent: AgentRun, wait: () => Promise<T>): Promise<T> {
    if (parent.waits++ === 0 && parent.holdsSlot) {
      parent.holdsSlot = false;
      parent.tree.limiter.release();
    }
    try {
      return await wait();
    } finally {
      if (--parent.waits === 0 && parent.parent && !parent.holdsSlot && !parent.signal.aborted) {
        await parent.tree.limiter.acquire(parent.signal);
        parent.holdsSlot = true;
      }
    }
  }

  async spawn(parent: AgentRun, input: SpawnInput, toolUseId: string): Promise<AgentRun | string> {
    const settings = this.#options.settings();
    if (input.isolation && input.cwd) return 'isolation and cwd cannot be used together: an isolated agent works in the worktree created for it.';
    if (input.resume) return this.#spawnResume(parent, input, toolUseId, settings);
    const name = input.subagent_type?.trim() || DEFAULT_AGENT;
    const refusal = checkSpawn({
      target: name,
      available: this.#options.catalog.agents.map((a) => a.name),
      disabled: settings.disabledAgents,
      parentName: parent.agentName,
      parentSpawns: parent.spawns,
    });
    if (refusal) return refusal;
    const definition = this.#options.catalog.find(name)!;

    let cwd = parent.cwd;
    if (input.cwd) {
      if (!path.isAbsolute(input.cwd)) return `cwd must be an absolute path, got "${input.cwd}".`;
      const info = await stat(input.cwd).catch(() => null);
      if (!info?.isDirectory()) return `cwd "${input.cwd}" is not an existing directory.`;
      cwd = path.resolve(input.cwd);
    }

    const background = Boolean(input.run_in_background || definition.background) && !definition.blocking;
    if (background) {
      const running = this.running.filter((a) => a.background).length;
      if (running >= settings.maxBackgroundAgents) {
        return `Cannot start another background agent: ${running} are running, the limit is ${settings.maxBackgroundAgents} (subagents.maxBackgroundAgents). Wait for one with TaskOutput, stop one with TaskStop, or run this one in the foreground.`;
      }
    }

    const planMode = parent.planMode || definition.permissionMode === 'plan';
    const child = new AgentRun({
      id: newAgentId(),
      parent,
      parentToolUseId: toolUseId,
      tree: parent.tree,
      definition,
      model: resolveModel({ requested: input.model, definition: definition.model, parent: parent.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      cwd,
      description: input.description || firstLine(input.prompt),
      prompt: input.prompt,
      background,
      permissionMode: planMode ? 'plan' : (definition.permissionMode ?? parent.permissionMode),
      planMode,
      outputSchema: effectiveSchema(input.schema, definition.output, parent.outputSchema),
      thinking: definition.thinkingLevel,
      maxTurns: definition.maxTurns ?? settings.maxTurns,
    });
    if (input.isolation === 'worktree' || definition.isolation === 'worktree') {
      if (input.cwd) return 'This agent always runs isolated in a worktree (isolation: worktree in its definition), so it cannot be given a cwd.';
      const failure = await this.#isolate(child);
      if (failure) return failure;
    }
    parent.children.add(child);
    this.#launch(child);
    return child;
  }

  async #spawnResume(parent: AgentRun, input: SpawnInput, toolUseId: string, settings: Settings): Promise<AgentRun | string> {
    let source: ResumeSource;
    try {
      source = await this.#resumable(input.resume!);
    } catch (error) {
      return (error as Error).message;
    }
    if (source.runId !== parent.tree.runId) return `Agent ${source.agentId} belongs to another run; you can resume only agents of this run.`;
    if (source.agentId === parent.id) return 'An agent cannot resume itself.';
    const child = this.#continued(source, input.prompt, { parent, parentToolUseId: toolUseId, tree: parent.tree, settings, background: Boolean(input.run_in_background) });
    const failure = await this.#reisolate(child);
    if (failure) return failure;
    parent.children.add(child);
    this.#launch(child);
    return child;
  }

  // ---- running an agent ---------------------------------------------------

  #launch(run: AgentRun): void {
    this.#agents.set(run.id, run);
    void this.#execute(run);
  }

  #emitter(run: AgentRun): EmitEvent {
    return (partial) => {
      const event = { ts: Date.now(), runId: run.tree.runId, agentId: run.id, ...partial } as RunEvent;
      for (const listener of this.#listeners) {
        try {
          listener(event);
        } catch {
          // A surface that fails to render must not break the run.
        }
      }
    };
  }

  #toolsFor(run: AgentRun, settings: Settings, structured: StructuredOutputSlot | null): Map<string, RuntimeTool> {
    const pool = computeToolPool({ definition: run.definition, runtime: RUNTIME_TOOLS, depth: run.depth, maxDepth: settings.maxDepth, planMode: run.planMode });
    run.spawns = pool.spawns;
    const wanted = new Set(pool.tools);
    const tools: RuntimeTool[] = [];
    const waitAsParent = <T>(wait: () => Promise<T>) => this.whileWaiting(run, wait);
    if (wanted.has('Task')) tools.push(spawnTool(run, this));
    if (wanted.has('TaskOutput')) tools.push(taskOutputTool(run, waitAsParent));
    if (wanted.has('TaskStop')) tools.push(taskStopTool(run));
    if (['Bash', 'Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS'].some((n) => wanted.has(n))) {
      tools.push(...createFileTools(run.cwd).filter((t) => wanted.has(t.name)));
    }
    if (wanted.has('TodoWrite')) tools.push(todoWriteTool());
    if (wanted.has('WebSearch')) tools.push(webSearchTool());
    if (wanted.has('WebFetch')) tools.push(webFetchTool());
    tools.sort((a, b) => RUNTIME_TOOL_ORDER.indexOf(a.name) - RUNTIME_TOOL_ORDER.indexOf(b.name));
    if (structured && run.outputSchema) tools.push(structuredOutputTool(run.outputSchema, structured));
    // The model calls server tools by their API name (web_search), everything else by ours.
    return new Map(tools.map((t) => [('name' in t.definition ? t.definition.name : t.name) as string, t]));
  }

  async #execute(run: AgentRun): Promise<void> {
    const emit = this.#emitter(run);
    const settings = this.#options.settings();
    const structured: StructuredOutputSlot | null = run.outputSchema ? { value: undefined, wrapped: false } : null;
    let tools = new Map<string, RuntimeTool>();
    let outcome: LoopOutcome;
    try {
      if (run.parent) {
        await run.tree.limiter.acquire(run.signal);
        run.holdsSlot = true;
      }
      run.status = 'running';
      run.startedAt = Date.now();
      tools = this.#toolsFor(run, settings, structured);
      emit({
        type: 'agent_started',
        parentId: run.parent?.id ?? null,
        parentToolUseId: run.parentToolUseId,
        agentName: run.agentName,
        description: run.description,
        prompt: run.prompt,
        model: run.model,
        depth: run.depth,
        cwd: run.cwd,
        background: run.background,
        filePath: run.definition.filePath || null,
        resumed: run.resumed,
      });
      if (run.isolation) emit({ type: 'worktree_created', path: run.isolation.path, branch: run.isolation.branch, baseCommit: run.isolation.baseCommit });
      await this.#startHooks(run);
      const env = await promptEnvironment(run.cwd, Boolean(run.isolation));
      const planNote = run.planMode ? ['You are in plan mode: you may read and search, but not change anything. Finish with a clear, concrete plan.'] : [];
      outcome = await runQueryLoop(run, {
        client: this.#options.client,
        tools,
        system: buildSystemPrompt(run.definition.systemPrompt, env, planNote),
        gate: this.#gate,
        maxTokens: this.#options.maxTokens ?? 16_384,
        retry: this.#options.retry ?? { maxAttempts: 4, baseDelayMs: 500 },
        structured,
        emit,
        onUsage: (delta) => run.tree.budget.add(delta),
        persist: () => this.#persist(run),
        beforeComplete: (output, round) => this.#stopHooks(run, output, round),
      });
    } catch (error) {
      // Only waiting for a concurrency slot or the worktree can throw here.
      outcome = run.signal.aborted
        ? { status: 'cancelled', output: null, error: run.signal.reason instanceof Error ? run.signal.reason.message : 'Cancelled.' }
        : { status: 'failed', output: null, error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.#persist(run);
      for (const tool of tools.values()) await Promise.resolve(tool.close?.()).catch(() => undefined);
      if (run.holdsSlot) {
        run.holdsSlot = false;
        run.tree.limiter.release();
      }
    }
    // An agent does not outlive its parent's interest: children still running are stopped with it.
    for (const child of run.children) if (!child.ended) child.controller.abort(new CancelledError(`Its parent agent "${run.agentName}" ended.`));
    await Promise.all([...run.children].map((c) => c.done));
    await this.#settleWorktree(run);

    const result: AgentResult = {
      agentId: run.id,
      runId: run.tree.runId,
      agentName: run.agentName,
      status: outcome.status,
      output: outcome.output,
      ...(outcome.structuredOutput !== undefined ? { structuredOutput: outcome.structuredOutput } : {}),
      error: outcome.error,
      usage: run.usage ?? emptyUsage(),
      turns: run.turns,
      durationMs: Date.now() - run.startedAt,
      worktree: run.worktree,
    };
    emit({
      type: 'agent_finished',
      status: result.status,
      output: result.output,
      ...(result.structuredOutput !== undefined ? { structuredOutput: result.structuredOutput } : {}),
      error: result.error,
      usage: result.usage,
      turns: result.turns,
      durationMs: result.durationMs,
      worktree: result.worktree,
    });
    run.finish(result);
    if (run.background && run.parent && !run.parent.ended) run.parent.notify(completionNotice(run));
    this.#pruneEnded();
  }

  #hookInfo(run: AgentRun): SubagentInfo {
    return {
      runId: run.tree.runId,
      agentId: run.id,
      agentName: run.agentName,
      parentId: run.parent?.id ?? null,
      cwd: run.cwd,
      permissionMode: run.permissionMode,
      transcriptPath: this.#options.archive?.transcriptPath(run.id) ?? null,
    };
  }

  /** SubagentStart hooks may add context: it goes in front of the agent's task. */
  async #startHooks(run: AgentRun): Promise<void> {
    if (!this.#options.hooks) return;
    const { additionalContext } = await this.#options.hooks.subagentStart({ ...this.#hookInfo(run), prompt: run.prompt }).catch((error: unknown) => {
      this.#options.log?.('warn', `SubagentStart hooks failed: ${String(error)}`);
      return {} as { additionalContext?: string };
    });
    if (!additionalContext) return;
    const first = run.messages[run.persisted];
    if (first?.role === 'user' && Array.isArray(first.content)) first.content.unshift({ type: 'text', text: additionalContext });
  }

  async #stopHooks(run: AgentRun, output: string, round: number): Promise<string | null> {
    if (!this.#options.hooks || round >= MAX_STOP_HOOK_ROUNDS) return null;
    const { continueWith } = await this.#options.hooks.subagentStop({ ...this.#hookInfo(run), lastAssistantMessage: output, stopHookActive: round > 0 }).catch((error: unknown) => {
      this.#options.log?.('warn', `SubagentStop hooks failed: ${String(error)}`);
      return {} as { continueWith?: string };
    });
    return continueWith ?? null;
  }

  /** Appends what the transcript on disk does not have yet. */
  #persist(run: AgentRun): void {
    const archive = this.#options.archive;
    if (!archive || run.persisted >= run.messages.length) return;
    const fresh = run.messages.slice(run.persisted);
    run.persisted = run.messages.length;
    archive.appendTranscript(run.id, fresh).catch((error: unknown) => {
      this.#options.log?.('error', `Could not save the transcript of agent ${run.id}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  #pruneEnded(): void {
    const ended = [...this.#agents.values()].filter((a) => a.ended && (!a.parent || a.parent.ended));
    for (const run of ended.slice(0, Math.max(0, ended.length - ENDED_AGENTS_KEPT))) this.#agents.delete(run.id);
  }
}

interface ResumeSource {
  agentId: string;
  runId: string;
  definition: AgentDefinition;
  model: string;
  cwd: string;
  description: string;
  messages: BetaMessageParam[];
  usage: Usage;
  turns: number;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
