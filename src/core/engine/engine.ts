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
import { MemoryMailbox, type AgentMailbox, type MailEntry } from './mail';
import { Messenger, type ContinueOptions, type Message, type SendOutcome } from './messenger';
import { resolveModel, type ModelChoice } from './models';
import { networkPolicy, type NetworkPolicy } from './network';
import { runQueryLoop, type LoopOutcome } from './queryLoop';
import { findResumable, type ResumeSource } from './resumeSource';
import { AgentSpawner, type AgentLookup, type SpawnerHost } from './spawner';
import type { StructuredOutputSlot } from './structuredOutput';
import { buildSystemPrompt, promptEnvironment } from './systemPrompt';
import { Redactor } from './redaction';
import type { Messaging } from './sendMessageTool';
import { buildTools } from './toolset';
import { authorizer, type Authorize } from './authorize';
import { isolate, reisolate, settleWorktree } from './worktreeSteps';
import { agentColor } from '../../protocol/agentColor';
import { TRUST_NOTHING, type ProjectTrust } from '../trust/projectTrust';

/**
 * The subagent engine (S3): runs agent trees on the Anthropic SDK. Every
 * agent is its own query loop with its own system prompt, tool pool and
 * model; the spawn tool starts nested agents under the guards of S3.3–S3.4
 * (spawner.ts). Everything an agent does is reported as typed RunEvents,
 * which the RunStore folds into the snapshots every surface renders.
 */

export type { AgentLookup } from './spawner';
export type { ContinueOptions, Message, SendOutcome } from './messenger';

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
  /**
   * Where messages and results wait until they are in an agent's
   * transcript (the run history's mailbox, which other processes write to);
   * default: memory.
   */
  mailbox?: AgentMailbox;
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

/** How a hook command appears to the permission gate: a shell command. */
const HOOK_COMMAND = { name: 'Hook', kind: 'exec' } as const;

/** Ended agents kept in memory for follow-ups; older ones come back from the history. */
const ENDED_AGENTS_KEPT = 200;

export class Engine {
  readonly #options: EngineOptions;
  readonly #gate: PermissionGate;
  readonly #listeners = new Set<(event: RunEvent) => void>();
  readonly #agents = new Map<string, AgentRun>();
  readonly #redactor: Redactor;
  readonly #consents: ModeConsents;
  readonly #log: NonNullable<EngineOptions['log']>;
  readonly #spawner: AgentSpawner;
  readonly #messenger: Messenger;
  readonly #mailbox: AgentMailbox;
  /** SendMessage's view of the engine: the agents of a run, and the way to reach one. */
  readonly #messaging: Messaging = {
    members: (runId) => [...this.#agents.values()].filter((a) => a.tree.runId === runId).map((a) => ({ agentId: a.id, agentName: a.agentName, ended: a.ended })),
    send: (agentId, message) => this.#messenger.send(agentId, message),
  };

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#gate = options.gate ?? new PermissionGate(null);
    this.#consents = options.modeConsents ?? new ModeConsents();
    this.#redactor = new Redactor(options.secrets ?? (() => [options.client.apiKey, options.client.authToken]));
    this.#log = (level, message) => options.log?.(level, this.#redactor.text(message));
    this.#spawner = new AgentSpawner({
      catalog: options.catalog,
      settings: options.settings,
      worktrees: options.worktrees,
      outputFile: (agentId) => options.archive?.transcriptPath(agentId) ?? null,
      permissionMode: (definition, current, signal) => this.#mode(definition, current, signal),
      model: (choice) => this.#model(choice),
      resumable: (agentId) => this.#resumable(agentId),
      continued: (source, prompt, place) => this.#continued(source, prompt, place),
      launch: (run) => this.#launch(run),
    });
    this.#mailbox = options.mailbox ?? new MemoryMailbox();
    this.#messenger = new Messenger({
      mailbox: this.#mailbox,
      find: (agentId) => this.#agents.get(agentId),
      works: (runId) => this.running.some((a) => a.tree.runId === runId),
      resumable: (agentId) => this.#resumable(agentId),
      continueAgent: (source, prompt, parent, opts) => this.#continueAgent(source, prompt, parent, opts),
      publish: (runId, agentId, event) => this.#publish(runId, agentId, event as never),
      cancel: (agentId, reason) => this.cancel(agentId, reason),
      cancelRun: (runId, reason) => this.cancelRun(runId, reason),
      log: (level, message) => this.#log(level, message),
    });
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
   * and its place in its run tree, and gets what waited for it (messages it
   * never read, results of children that ended after it) before `prompt`.
   * While its parent still works here it runs as that parent's background
   * child (the parent gets its result); otherwise as the root of a new tree
   * context (its own budget and concurrency).
   */
  async sendFollowUp(agentId: string, prompt: string, options: ContinueOptions = {}): Promise<AgentRun> {
    return this.#messenger.continueWith(await this.#resumable(agentId), [], prompt, options);
  }

  /**
   * Sends a message to an agent (S4.6): one at work reads it at its next
   * turn boundary, one that ended is continued with it, one another process
   * runs gets it through the mailbox that process watches. Throws an
   * EngineError when the agent cannot be reached (unknown, expired).
   */
  send(agentId: string, message: Message, options: ContinueOptions = {}): Promise<SendOutcome> {
    return this.#messenger.send(agentId, message, options);
  }

  /**
   * Resolves once no agent works here any more and no continuation is
   * being started: what a process waits for before it exits, so an agent
   * continued by a late message is not cut off.
   */
  get busy(): boolean {
    return this.running.length > 0 || this.#messenger.waking.length > 0;
  }

  async settled(): Promise<void> {
    for (;;) {
      const work = [...this.running.map((r) => r.done), ...this.#messenger.waking];
      if (work.length === 0) return;
      await Promise.allSettled(work);
    }
  }

  /** An entry the mailbox watcher found; false when it is not for this engine. */
  receive(entry: MailEntry): boolean {
    return this.#messenger.receive(entry);
  }

  async #continueAgent(source: ResumeSource, prompt: string, parent: AgentRun | null, options: ContinueOptions): Promise<AgentRun> {
    const settings = this.#options.settings();
    let run: AgentRun;
    if (parent) {
      const permissionMode = await this.#mode(source.definition, parent.permissionMode, parent.signal);
      run = this.#continued(source, prompt, { parent, parentToolUseId: source.parentToolUseId, tree: parent.tree, settings, background: true, permissionMode });
      const stop = options.signal;
      if (stop?.aborted) run.controller.abort(new CancelledError());
      else stop?.addEventListener('abort', () => run.controller.abort(new CancelledError()), { once: true });
    } else {
      const tree = newTree(source.runId, settings, options.budget, options.signal);
      const permissionMode = await this.#mode(source.definition, options.permissionMode ?? settings.permissionMode, tree.controller.signal);
      run = this.#continued(source, prompt, { parent: null, reportsTo: source.parentId, parentToolUseId: null, tree, settings, background: false, permissionMode });
    }
    const failure = await reisolate(this.#options.worktrees, run);
    if (failure) throw new EngineError(failure);
    parent?.children.add(run);
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

  #continued(source: ResumeSource, prompt: string, place: Parameters<SpawnerHost['continued']>[2]): AgentRun {
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

  /** Stops every agent of a run at work here; returns how many trees it stopped. */
  cancelRun(runId: string, reason = 'Cancelled by the user.'): number {
    const roots = this.running.filter((r) => r.tree.runId === runId && (!r.parent || r.parent.ended));
    for (const root of roots) root.controller.abort(new CancelledError(reason));
    return roots.length;
  }

  cancelAll(reason = 'Cancelled by the user.'): number {
    const roots = this.running.filter((r) => !r.parent || r.parent.ended);
    for (const root of roots) root.controller.abort(new CancelledError(reason));
    return roots.length;
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
    const send: EmitEvent = (partial) => this.#publish(run.tree.runId, run.id, partial);
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

  #publish(runId: string, agentId: string, partial: Parameters<EmitEvent>[0]): void {
    const event = this.#redactor.value({ ts: Date.now(), runId, agentId, ...partial } as RunEvent);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A surface that fails to render must not break the run.
      }
    }
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
      await run.slot.take();
      run.status = 'running';
      run.startedAt = Date.now();
      tools = buildTools(run, settings, structured, this.#spawner, this.#messaging);
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
        redact: (value) => this.#redactor.value(value),
        onUsage: (delta) => run.budget.add(delta),
        persist: () => this.#persist(run),
        // Hooks are commands: none runs in a plan-mode tree (#startHooks said so in the log).
        beforeComplete: (output, round) =>
          run.planMode ? Promise.resolve(null) : stopInstruction(this.#options.hooks, { ...this.#hookInfo(run, emit), lastAssistantMessage: this.#redactor.text(output) }, round, this.#log),
      });
      run.sealed = true;
    } catch (error) {
      // Only waiting for a concurrency slot, or a run another process works on, can throw here.
      outcome = run.signal.aborted
        ? { status: 'cancelled', output: null, error: run.signal.reason instanceof Error ? run.signal.reason.message : 'Cancelled.' }
        : { status: 'failed', output: null, error: error instanceof Error ? error.message : String(error) };
    } finally {
      run.sealed = true;
      if (recorded) this.#persist(run);
      for (const tool of tools.values()) await Promise.resolve(tool.close?.()).catch(() => undefined);
      run.slot.close();
    }
    // An agent does not outlive its parent's interest: children still running are stopped with it.
    for (const child of run.children) if (!child.ended) child.controller.abort(new CancelledError(`Its parent agent "${run.agentName}" ended.`));
    await Promise.all([...run.children].map((c) => c.done));
    await settleWorktree(this.#options.worktrees, run, this.#log, (text) => this.#redactor.text(text));

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
    // What arrived too late for its last turn continues it (a message) or waits for its next continuation.
    run.next = this.#messenger.afterEnd(run, run.inbox.drain(), result.status === 'cancelled');
    run.finish(result);
    await this.#messenger.resultReady(run).catch((error: unknown) => this.#log('error', `The result of agent ${run.id} could not be kept for its parent: ${(error as Error).message}`));
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
      // What hooks report (their stderr among it) leaves through the engine's redaction, as every log line does.
      log: this.#log,
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

  /**
   * Appends what the transcript on disk does not have yet; the messages and
   * results delivered in it leave the mailbox once it is written.
   */
  #persist(run: AgentRun): void {
    const delivered = run.inbox.toSave();
    const archive = this.#options.archive;
    if (!archive || run.persisted >= run.messages.length) {
      this.#messenger.acknowledge(delivered);
      return;
    }
    const fresh = run.messages.slice(run.persisted);
    run.persisted = run.messages.length;
    archive.appendTranscript(run.id, this.#redactor.value(fresh)).then(
      () => this.#messenger.acknowledge(delivered),
      (error: unknown) => this.#log('error', `Could not save the transcript of agent ${run.id}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  #pruneEnded(): void {
    const ended = [...this.#agents.values()].filter((a) => a.ended && (!a.parent || a.parent.ended));
    for (const run of ended.slice(0, Math.max(0, ended.length - ENDED_AGENTS_KEPT))) this.#agents.delete(run.id);
  }
}
