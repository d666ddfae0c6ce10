import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { emptyUsage, type RunEvent } from '../../protocol/runEvents';
import type { AgentDefinition } from '../agents/definition';
import type { Settings } from '../config';
import type { WorktreeManager } from '../isolation';
import { newAgentId } from './ids';
import { ModeConsents } from '../tools/modeConsent';
import { PermissionGate, type PermissionMode } from '../tools/permissions';
import type { RuntimeTool } from '../tools/runtimeTool';
import { createAgentRun, firstLine, newTree } from './agentFactory';
import type { AgentArchive } from './archive';
import type { AgentResult, AgentRun, EmitEvent } from './agentRun';
import type { Budget } from './budget';
import { CancelledError, EngineError } from './errors';
import { startContext, stopInstruction, type LifecycleHooks, type SubagentInfo } from './lifecycleHooks';
import { resolveModel, type ModelChoice } from './models';
import { networkPolicy, type NetworkPolicy } from './network';
import { runQueryLoop, type LoopOutcome } from './queryLoop';
import { findResumable, type ResumeSource } from './resumeSource';
import { DEFAULT_AGENT, type SpawnInput, type Spawner } from './spawnTool';
import type { StructuredOutputSlot } from './structuredOutput';
import { buildSystemPrompt, promptEnvironment } from './systemPrompt';
import { completionNotice } from './taskTools';
import { checkSpawn } from './toolPool';
import { Redactor } from './redaction';
import { buildTools } from './toolset';
import { authorizer, type Authorize } from './authorize';
import { childCwd } from './workingDir';
import { isolate, reisolate, settleWorktree } from './worktreeSteps';
import { agentColor } from '../../protocol/agentColor';
import { TRUST_NOTHING, type ProjectTrust } from '../trust/projectTrust';

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
  /** Overrides of the timeouts and retries the `subagents.network.*` settings give (S3.10); tests use short ones. */
  network?: Partial<NetworkPolicy>;
  /** Keeps transcripts and finds ended agents after a restart (the run history). */
  archive?: AgentArchive;
  /** SubagentStart / SubagentStop hooks (S4.5). */
  hooks?: LifecycleHooks;
  /**
   * Whether a folder's own code (its hooks, later its MCP servers) may run:
   * the one place every such runner asks. Default: no folder is trusted.
   */
  trust?: ProjectTrust;
  /**
   * Consent for agent files that ask for a wider permission mode than the
   * one they would run under (S7.3), remembered per file content. Without
   * it, such a file is refused its wider mode, with a warning in the log.
   */
  modeConsents?: ModeConsents;
  /** Git worktrees for isolated agents (S5); without it, isolation is refused. */
  worktrees?: WorktreeManager;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * The secrets to keep out of events, results, transcripts and logs
   * (S7.2); read at each use. Default: the client's API key and auth token.
   */
  secrets?: () => ReadonlyArray<string | null | undefined>;
  /**
   * Renames every resolved model before it is used and shown; must be
   * idempotent (a child inherits its parent's mapped model). `npm start`'s
   * demo model uses it so every surface says which model really answers.
   */
  mapModel?: (model: string) => string;
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

/** The spawn call's budget in the engine's terms, or the refusal when the parent has nothing left to give. */
function spawnBudget(parent: AgentRun, input: SpawnInput): Budget | string | undefined {
  if (!input.budget) return undefined;
  const left = parent.budget.remaining();
  if (left.tokens === 0 || left.costUsd === 0) return 'No budget left to give a subagent: your own budget is spent.';
  return { maxTokens: input.budget.max_tokens, maxCostUsd: input.budget.max_cost_usd };
}

/** How a hook command appears to the permission gate: a shell command. */
const HOOK_COMMAND = { name: 'Hook', kind: 'exec' } as const;

/** Ended agents kept in memory for follow-ups; older ones come back from the history. */
const ENDED_AGENTS_KEPT = 200;

export class Engine implements Spawner {
  readonly #options: EngineOptions;
  readonly #gate: PermissionGate;
  readonly #listeners = new Set<(event: RunEvent) => void>();
  readonly #agents = new Map<string, AgentRun>();
  readonly #redactor: Redactor;
  readonly #consents: ModeConsents;
  readonly #log: NonNullable<EngineOptions['log']>;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#gate = options.gate ?? new PermissionGate(null);
    this.#consents = options.modeConsents ?? new ModeConsents();
    this.#redactor = new Redactor(options.secrets ?? (() => [options.client.apiKey, options.client.authToken]));
    this.#log = (level, message) => options.log?.(level, this.#redactor.text(message));
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
    const tree = newTree(id, settings, request.budget, request.signal);
    const run = createAgentRun({
      id,
      definition,
      parent: null,
      parentToolUseId: null,
      tree,
      settings,
      model: this.#model({ requested: request.model, definition: definition.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      cwd: path.resolve(request.cwd),
      // Claude Code's initialPrompt: what the agent is told first when it runs as the root agent.
      prompt: definition.initialPrompt ? `${definition.initialPrompt}\n\n${request.prompt}` : request.prompt,
      description: request.description ?? firstLine(request.prompt),
      background: false,
      permissionMode: await this.#mode(definition, request.permissionMode ?? settings.permissionMode, tree.controller.signal),
      schema: request.schema,
    });
    if (request.isolation === 'worktree' || definition.isolation === 'worktree') {
      const failure = await isolate(this.#options.worktrees, run);
      if (failure) throw new EngineError(failure);
    }
    this.#launch(run);
    return run;
  }

  async run(request: RunRequest): Promise<AgentResult> {
    return (await this.start(request)).done;
  }

  /**
   * Continues an ended agent with its whole conversation (S4.3): the
   * sidebar's "Send follow-up", `subagents resume`. The agent keeps its id
   * and its place in its run tree; it runs as the root of a new tree context
   * (its own budget and concurrency), since its parent has ended.
   */
  async sendFollowUp(agentId: string, prompt: string, options: { signal?: AbortSignal; budget?: Budget; permissionMode?: PermissionMode } = {}): Promise<AgentRun> {
    const source = await this.#resumable(agentId);
    const settings = this.#options.settings();
    const tree = newTree(source.runId, settings, options.budget, options.signal);
    const permissionMode = await this.#mode(source.definition, options.permissionMode ?? settings.permissionMode, tree.controller.signal);
    const run = this.#continued(source, prompt, { parent: null, parentToolUseId: null, tree, settings, background: false, permissionMode });
    const failure = await reisolate(this.#options.worktrees, run);
    if (failure) throw new EngineError(failure);
    this.#launch(run);
    return run;
  }

  /** The mode an agent runs under: `current` narrowed by its file's mode, or widened only with the user's consent. */
  async #mode(definition: AgentDefinition, current: PermissionMode, signal: AbortSignal): Promise<PermissionMode> {
    const { mode, refusal, warning } = await this.#consents.resolve(definition, current, signal);
    for (const message of [refusal, warning]) if (message) this.#log('warn', message);
    return mode;
  }

  #model(choice: ModelChoice): string {
    const model = resolveModel(choice);
    return this.#options.mapModel?.(model) ?? model;
  }

  #resumable(agentId: string): Promise<ResumeSource> {
    return findResumable(agentId, { live: this.#agents.get(agentId), archive: this.#options.archive, find: (name) => this.#options.catalog.find(name) });
  }

  #continued(
    source: ResumeSource,
    prompt: string,
    place: { parent: AgentRun | null; parentToolUseId: string | null; tree: AgentRun['tree']; settings: Settings; background: boolean; permissionMode: PermissionMode; budget?: Budget },
  ): AgentRun {
    return createAgentRun({
      ...place,
      id: source.agentId,
      definition: source.definition,
      model: this.#options.mapModel?.(source.model) ?? source.model,
      cwd: source.cwd,
      prompt,
      description: source.description,
      continued: { messages: source.messages, usage: source.usage, turns: source.turns },
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
      (a) =>
        !disabled.includes(a.name) &&
        a.modelInvocable !== false &&
        checkSpawn({ target: a.name, available: [a.name], disabled: [], parentName: parent.agentName, parentSpawns: parent.spawns }) === null,
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
    const budget = spawnBudget(parent, input);
    if (typeof budget === 'string') return budget;
    if (input.resume) return this.#spawnResume(parent, input, toolUseId, settings, budget);
    const requested = input.subagent_type?.trim() || DEFAULT_AGENT;
    // A plugin agent's bare name (`explore` for `sec:explore`) finds it when the name is its alone.
    const name = this.#options.catalog.find(requested)?.name ?? requested;
    const refusal = checkSpawn({
      target: name,
      available: this.#options.catalog.agents.map((a) => a.name),
      disabled: settings.disabledAgents,
      parentName: parent.agentName,
      parentSpawns: parent.spawns,
    });
    if (refusal) return refusal;
    const definition = this.#options.catalog.find(name)!;
    // Copilot's disable-model-invocation (or infer: false): only a person may start it.
    if (definition.modelInvocable === false) return `Agent "${name}" can only be started by the user (disable-model-invocation in ${definition.filePath || 'its definition'}), not by another agent.`;

    let cwd = parent.cwd;
    if (input.cwd) {
      const checked = await childCwd(input.cwd, parent);
      if (!checked.ok) return checked.refusal;
      cwd = checked.cwd;
    }

    // Asked before the background cap is checked: the check and the child's place under it must not be split by a wait.
    const permissionMode = await this.#mode(definition, parent.permissionMode, parent.signal);
    const background = Boolean(input.run_in_background || definition.background) && !definition.blocking;
    const full = background ? this.#backgroundCapReached(settings) : null;
    if (full) return full;

    const child = createAgentRun({
      id: newAgentId(),
      definition,
      parent,
      parentToolUseId: toolUseId,
      tree: parent.tree,
      settings,
      model: this.#model({ requested: input.model, definition: definition.model, parent: parent.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      cwd,
      prompt: input.prompt,
      description: input.description || firstLine(input.prompt),
      background,
      permissionMode,
      schema: input.schema,
      budget,
    });
    if (input.isolation === 'worktree' || definition.isolation === 'worktree') {
      if (input.cwd) return 'This agent always runs isolated in a worktree (isolation: worktree in its definition), so it cannot be given a cwd.';
      const failure = await this.#reserving(child, () => isolate(this.#options.worktrees, child));
      if (failure) return failure;
    }
    parent.children.add(child);
    this.#launch(child);
    return child;
  }

  /** The refusal for one more background agent past subagents.maxBackgroundAgents, or null. */
  #backgroundCapReached(settings: Settings): string | null {
    const running = this.running.filter((a) => a.background).length;
    if (running < settings.maxBackgroundAgents) return null;
    return `Cannot start another background agent: ${running} are running, the limit is ${settings.maxBackgroundAgents} (subagents.maxBackgroundAgents). Wait for one with TaskOutput, stop one with TaskStop, or run this one in the foreground.`;
  }

  /**
   * Counts `child` as running while `prepare` (making its worktree) is under
   * way, so spawns of the same turn checked meanwhile see it under the
   * background cap; a failed preparation gives its place back.
   */
  async #reserving(child: AgentRun, prepare: () => Promise<string | null>): Promise<string | null> {
    // A follow-up reuses its agent's id: the ended run it continues comes back if preparing fails.
    const previous = this.#agents.get(child.id);
    this.#agents.set(child.id, child);
    const failure = await prepare();
    if (failure) {
      if (previous) this.#agents.set(child.id, previous);
      else this.#agents.delete(child.id);
    }
    return failure;
  }

  async #spawnResume(parent: AgentRun, input: SpawnInput, toolUseId: string, settings: Settings, budget: Budget | undefined): Promise<AgentRun | string> {
    let source: ResumeSource;
    try {
      source = await this.#resumable(input.resume!);
    } catch (error) {
      return (error as Error).message;
    }
    if (source.runId !== parent.tree.runId) return `Agent ${source.agentId} belongs to another run; you can resume only agents of this run.`;
    if (source.agentId === parent.id) return 'An agent cannot resume itself.';
    const permissionMode = await this.#mode(source.definition, parent.permissionMode, parent.signal);
    const background = Boolean(input.run_in_background);
    const full = background ? this.#backgroundCapReached(settings) : null;
    if (full) return full;
    const child = this.#continued(source, input.prompt, { parent, parentToolUseId: toolUseId, tree: parent.tree, settings, background, permissionMode, budget });
    const failure = await this.#reserving(child, () => reisolate(this.#options.worktrees, child));
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

  /**
   * The one way an agent's events leave the engine: every string redacted;
   * streamed text redacted across chunk boundaries (an end that could be the
   * start of a secret waits for the next chunk or the next event).
   */
  #emitter(run: AgentRun): EmitEvent {
    const text = this.#redactor.stream();
    const send: EmitEvent = (partial) => {
      const event = this.#redactor.value({ ts: Date.now(), runId: run.tree.runId, agentId: run.id, ...partial } as RunEvent);
      for (const listener of this.#listeners) {
        try {
          listener(event);
        } catch {
          // A surface that fails to render must not break the run.
        }
      }
    };
    return (partial) => {
      if (partial.type === 'text') {
        const shown = text.push(partial.text);
        if (shown) send({ type: 'text', text: shown });
        return;
      }
      if (partial.type === 'retry') text.discard();
      else {
        const rest = text.flush();
        if (rest) send({ type: 'text', text: rest });
      }
      send(partial);
    };
  }

  async #execute(run: AgentRun): Promise<void> {
    const emit = this.#emitter(run);
    const settings = this.#options.settings();
    const structured: StructuredOutputSlot | null = run.outputSchema ? { value: undefined, wrapped: false } : null;
    let tools = new Map<string, RuntimeTool>();
    let outcome: LoopOutcome;
    // Nothing of an agent whose run another process works on may reach its transcript.
    let recorded = !this.#options.archive;
    try {
      if (run.parent) {
        await run.tree.limiter.acquire(run.signal);
        run.holdsSlot = true;
      }
      run.status = 'running';
      run.startedAt = Date.now();
      tools = buildTools(run, settings, structured, this);
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
        color: agentColor(run.definition.color),
      });
      if (run.isolation) emit({ type: 'worktree_created', path: run.isolation.path, branch: run.isolation.branch, baseCommit: run.isolation.baseCommit });
      await this.#startHooks(run, emit);
      await this.#options.archive?.begin(run.tree.runId);
      recorded = true;
      const env = await promptEnvironment(run.cwd, Boolean(run.isolation));
      const planNote = run.planMode ? ['You are in plan mode: you may read and search, but not change anything. Finish with a clear, concrete plan.'] : [];
      outcome = await runQueryLoop(run, {
        client: this.#options.client,
        tools,
        system: buildSystemPrompt(run.definition.systemPrompt, env, planNote),
        authorize: this.#authorizer(run, emit),
        maxTokens: this.#options.maxTokens ?? 16_384,
        network: networkPolicy(settings, this.#options.network),
        structured,
        emit,
        onUsage: (delta) => run.budget.add(delta),
        persist: () => this.#persist(run),
        // Hooks are commands: none runs in a plan-mode tree (#startHooks said so in the log).
        beforeComplete: (output, round) =>
          run.planMode ? Promise.resolve(null) : stopInstruction(this.#options.hooks, { ...this.#hookInfo(run, emit), lastAssistantMessage: this.#redactor.text(output) }, round, this.#log),
      });
    } catch (error) {
      // Only waiting for a concurrency slot, or a run another process works on, can throw here.
      outcome = run.signal.aborted
        ? { status: 'cancelled', output: null, error: run.signal.reason instanceof Error ? run.signal.reason.message : 'Cancelled.' }
        : { status: 'failed', output: null, error: error instanceof Error ? error.message : String(error) };
    } finally {
      if (recorded) this.#persist(run);
      for (const tool of tools.values()) await Promise.resolve(tool.close?.()).catch(() => undefined);
      if (run.holdsSlot) {
        run.holdsSlot = false;
        run.tree.limiter.release();
      }
    }
    // An agent does not outlive its parent's interest: children still running are stopped with it.
    for (const child of run.children) if (!child.ended) child.controller.abort(new CancelledError(`Its parent agent "${run.agentName}" ended.`));
    await Promise.all([...run.children].map((c) => c.done));
    await settleWorktree(this.#options.worktrees, run, this.#log);

    const result: AgentResult = this.#redactor.value({
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
    });
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

  #authorizer(run: AgentRun, emit: EmitEvent): Authorize {
    return authorizer(run, this.#gate, emit, (text) => this.#redactor.text(text));
  }

  #hookInfo(run: AgentRun, emit: EmitEvent): SubagentInfo {
    const authorize = this.#authorizer(run, emit);
    let asked = 0;
    return {
      // A hook the session did not start with runs only with this agent's approval for a shell command.
      approveCommand: (command, why) => authorize({ tool: HOOK_COMMAND, toolUseId: `hook_${run.id}_${++asked}`, summary: `${command} (${why})` }),
      runId: run.tree.runId,
      agentId: run.id,
      agentName: run.agentName,
      parentId: run.parent?.id ?? null,
      cwd: run.cwd,
      worktree: run.isolation ? { path: run.isolation.path, repoRoot: run.isolation.repoRoot } : null,
      permissionMode: run.permissionMode,
      trust: this.#options.trust ?? TRUST_NOTHING,
      transcriptPath: this.#options.archive?.transcriptPath(run.id) ?? null,
      signal: run.signal,
    };
  }

  /** SubagentStart hooks may add context: it goes in front of the agent's task. */
  async #startHooks(run: AgentRun, emit: EmitEvent): Promise<void> {
    if (run.planMode) {
      // Nothing in a plan-mode run tree changes a file or runs a command, and a hook is a command.
      if (this.#options.hooks) this.#log('info', `The SubagentStart and SubagentStop hooks of agent "${run.agentName}" (${run.id}) do not run: it is in plan mode, where nothing runs a command.`);
      return;
    }
    const context = await startContext(this.#options.hooks, { ...this.#hookInfo(run, emit), prompt: this.#redactor.text(run.prompt) }, this.#log);
    const first = run.messages[run.persisted];
    if (context && first?.role === 'user' && Array.isArray(first.content)) first.content.unshift({ type: 'text', text: context });
  }

  /** Appends what the transcript on disk does not have yet. */
  #persist(run: AgentRun): void {
    const archive = this.#options.archive;
    if (!archive || run.persisted >= run.messages.length) return;
    const fresh = run.messages.slice(run.persisted);
    run.persisted = run.messages.length;
    archive.appendTranscript(run.id, this.#redactor.value(fresh)).catch((error: unknown) => {
      this.#log('error', `Could not save the transcript of agent ${run.id}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  #pruneEnded(): void {
    const ended = [...this.#agents.values()].filter((a) => a.ended && (!a.parent || a.parent.ended));
    for (const run of ended.slice(0, Math.max(0, ended.length - ENDED_AGENTS_KEPT))) this.#agents.delete(run.id);
  }
}
