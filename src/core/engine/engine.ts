import path from 'node:path';
import type { RunEvent } from '../../protocol/runEvents';
import type { AgentDefinition } from '../agents/definition';
import { ModeConsents } from '../tools/modeConsent';
import { PermissionGate, type PermissionMode } from '../tools/permissions';
import { createAgentRun, firstLine, newTree } from './tree/agentFactory';
import { executeAgent, type ExecutionHost, type ExecutionOptions } from './tree/agentExecution';
import type { AgentResult, AgentRun, EmitEvent } from './tree/agentRun';
import type { Budget } from './tree/budget';
import { CancelledError, EngineError } from './errors';
import { admit, AdmissionError, type AdmissionContext, type Invoker } from './tree/admission';
import { newAgentId } from './ids';
import { MemoryMailbox, type AgentMailbox, type MailEntry } from './messaging/mail';
import { Messenger, type ContinueOptions, type Message, type SendOutcome } from './messaging/messenger';
import { resolveModel, type ModelChoice } from './loop/models';
import { Redactor } from '../redaction';
import type { McpHost } from '../mcp/host';
import { findResumable, type ResumeSource } from './tree/resumeSource';
import type { Messaging } from './tools/sendMessageTool';
import { AgentSpawner, type AgentLookup, type SpawnerHost } from './tree/spawner';
import { leadPrompt, type TeamStart } from './team/leadBrief';
import { Team, type TeamRecord } from './team/team';
import { Teammate } from './team/teammate';
import { inGitRepository } from '../isolation';
import { isolate, reisolate } from './tree/worktreeSteps';

/**
 * The subagent engine: runs agent trees on the Anthropic SDK. Every
 * agent is its own query loop with its own system prompt, tool pool and
 * model; the spawn tool starts nested agents under the tool-pool and spawn
 * checks (toolPool.ts, spawner.ts). Everything an agent does is reported as typed RunEvents,
 * which the RunStore folds into the snapshots every surface renders.
 */

export type { AgentLookup } from './tree/spawner';
export type { ContinueOptions, Message, SendOutcome } from './messaging/messenger';

export interface EngineOptions extends ExecutionOptions {
  catalog: AgentLookup;
  gate?: PermissionGate;
  /**
   * Where messages and results wait until they are in an agent's
   * transcript (the run history's mailbox, which other processes write to);
   * default: memory.
   */
  mailbox?: AgentMailbox;
  /**
   * Consent for agent files that ask for a wider permission mode than the
   * one they would run under, remembered per file content. Without
   * it, such a file is refused its wider mode, with a warning in the log.
   */
  modeConsents?: ModeConsents;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * The secrets to keep out of events, results, transcripts and logs; read
   * at each use. Default: the client's API key and auth token.
   */
  secrets?: () => ReadonlyArray<string | null | undefined>;
  /**
   * Renames every resolved model before it is used and shown; must be
   * idempotent (a child inherits its parent's mapped model). `npm start`'s
   * demo model uses it so every surface says which model really answers.
   */
  mapModel?: (model: string) => string;
  /** MCP servers and the editor's tools for the agents whose files name them; without it, agents get the runtime's tools only. */
  mcp?: McpHost;
  /**
   * What admission needs beyond the agent (admission.ts): whether runs are
   * allowed where this engine works, whether it has a key. Absent: not
   * checked here (an engine without a host, in tests).
   */
  admission?: () => AdmissionContext;
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
  /** Where that worktree starts (before the definition's `baseRef` and `subagents.worktrees.baseRef`). */
  baseRef?: string;
  signal?: AbortSignal;
  /** Passed to the editor's tools the tree's agents call (VS Code: the chat request's tool invocation token). */
  runContext?: unknown;
  /** Who asks: a person (default) or a model through a tool; admission differs (`user-invocable`, `disable-model-invocation`). */
  invoker?: Invoker;
  /**
   * Runs a team file: `agent` is its lead, which is told the file's brief,
   * the roster and `prompt` (the goal), and starts the task list with the
   * file's tasks.
   */
  team?: TeamStart;
}

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
  /** Each run's team (its task list and teammates), for as long as agents of the run are kept here. */
  readonly #teams = new Map<string, Team>();
  /** What running an agent needs from the engine (agentExecution.ts). */
  readonly #execution: ExecutionHost;
  /** SendMessage's view of the engine: the agents of a run, and the way to reach one. */
  readonly #messaging: Messaging = {
    members: (runId) => this.#members(runId),
    send: (agentId, message) => this.#messenger.send(agentId, message),
    endTeammate: (agentId, reason) => {
      const run = this.#agents.get(agentId);
      if (!run?.teammate || run.ended) return false;
      run.teammate.end(reason);
      return true;
    },
  };

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#gate = options.gate ?? new PermissionGate(null);
    this.#consents = options.modeConsents ?? new ModeConsents();
    const secrets = options.secrets ?? (() => [options.client.apiKey, options.client.authToken]);
    // MCP servers' tokens too: a server's error, or a tool, may echo them.
    this.#redactor = new Redactor(() => (options.mcp ? [...secrets(), ...options.mcp.secrets] : secrets()));
    this.#log = (level, message) => options.log?.(level, this.#redactor.text(message));
    this.#spawner = new AgentSpawner({
      catalog: options.catalog,
      settings: options.settings,
      worktrees: options.worktrees,
      outputFile: (agentId) => options.archive?.transcriptPath(agentId) ?? null,
      permissionMode: (definition, current, signal, runId) => this.#mode(definition, current, signal, runId),
      model: (choice) => this.#model(choice),
      resumable: (agentId) => this.#resumable(agentId),
      continued: (source, prompt, place) => this.#continued(source, prompt, place),
      launch: (run) => this.#launch(run),
      inRepository: (cwd) => inGitRepository(cwd),
    });
    this.#mailbox = options.mailbox ?? new MemoryMailbox();
    this.#messenger = new Messenger({
      mailbox: this.#mailbox,
      find: (agentId) => this.#agents.get(agentId),
      works: (runId) => this.running.some((a) => a.tree.runId === runId),
      resumable: (agentId) => this.#resumable(agentId),
      queueElsewhere: async (entry, owner) => {
        const archive = this.#options.archive;
        if (archive?.queueIfBusy) return archive.queueIfBusy(entry);
        await this.#mailbox.post(entry);
        return owner;
      },
      claim: async (entry) => {
        const outcome = await this.#options.archive?.queueOrClaim?.(entry);
        return outcome && 'queued' in outcome ? outcome.queued : null;
      },
      unclaim: async (runId) => this.#options.archive?.unclaim?.(runId),
      continueAgent: (source, prompt, parent, opts) => this.#continueAgent(source, prompt, parent, opts),
      publish: (runId, agentId, event) => this.#publish(runId, agentId, event as never),
      cancel: (agentId, reason) => this.cancel(agentId, reason),
      cancelRun: (runId, reason) => this.cancelRun(runId, reason),
      log: (level, message) => this.#log(level, message),
    });
    this.#execution = {
      options,
      gate: this.#gate,
      consents: this.#consents,
      redactor: this.#redactor,
      log: this.#log,
      spawner: this.#spawner,
      messaging: this.#messaging,
      messenger: this.#messenger,
      publish: (runId: string, agentId: string, event: Parameters<EmitEvent>[0]) => this.#publish(runId, agentId, event),
      ended: () => this.#pruneEnded(),
    };
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

  /** Null when `name` may start now for `invoker`, else the refusal (admission.ts): what surfaces show before asking for a task. */
  admission(name: string, invoker: Invoker = 'user', budget?: Budget) {
    const { catalog } = this.#options;
    return admit({ name, definition: catalog.find(name), available: catalog.agents.map((a) => a.name), settings: this.#options.settings(), invoker, budget, context: this.#options.admission?.() });
  }

  /** Starts a root agent; throws an AdmissionError when it may not start, an EngineError for an impossible isolation. */
  async start(request: RunRequest): Promise<AgentRun> {
    const settings = this.#options.settings();
    const refusal = this.admission(request.agent, request.invoker, request.budget);
    if (refusal) throw new AdmissionError(refusal);
    const definition = this.#options.catalog.find(request.agent)!;
    if (request.team) this.#checkTeam(request.team, settings.disabledAgents);
    const id = newAgentId();
    const team = this.#team(id, definition.name, request.team ? { info: request.team.info, tasks: [], members: [] } : undefined);
    if (request.team) team.seed(request.team.tasks);
    const tree = newTree(id, settings, request.budget, request.signal, team, this.#options.mcp, request.runContext);
    const prompt = request.team ? leadPrompt(request.team, request.prompt) : request.prompt;
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
      prompt: definition.initialPrompt ? `${definition.initialPrompt}\n\n${prompt}` : prompt,
      description: request.description ?? firstLine(request.prompt),
      background: false,
      permissionMode: await this.#mode(definition, request.permissionMode ?? settings.permissionMode, tree.controller.signal, tree.runId),
      schema: request.schema,
    });
    if (request.isolation === 'worktree' || definition.isolation === 'worktree') {
      const failure = await isolate(this.#options.worktrees, run, request.baseRef ?? definition.baseRef ?? settings['worktrees.baseRef']);
      if (failure) throw new EngineError(failure);
    } else if (request.baseRef) {
      throw new EngineError(`A base ref applies to an isolated run only: "${request.agent}" does not run in a worktree (give isolation: worktree too).`);
    }
    this.#launch(run);
    return run;
  }

  async run(request: RunRequest): Promise<AgentResult> {
    return (await this.start(request)).done;
  }

  /**
   * Continues an ended agent with its whole conversation: the
   * sidebar's "Send follow-up", `subagents resume`. The agent keeps its id
   * and its place in its run tree, and gets what waited for it (messages it
   * never read, results of children that ended after it) before `prompt`.
   * While its parent still works here it runs as that parent's background
   * child (the parent gets its result); otherwise as the root of a new tree
   * context (its own budget and concurrency).
   */
  async sendFollowUp(agentId: string, prompt: string, options: ContinueOptions = {}): Promise<AgentRun> {
    return this.#messenger.followUp(agentId, prompt, options);
  }

  /**
   * Sends a message to an agent: one at work reads it at its next
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
      const permissionMode = await this.#mode(source.definition, parent.permissionMode, parent.signal, parent.tree.runId);
      run = this.#continued(source, prompt, { parent, parentToolUseId: source.parentToolUseId, tree: parent.tree, settings, background: true, permissionMode });
      const stop = options.signal;
      if (stop?.aborted) run.controller.abort(new CancelledError());
      else stop?.addEventListener('abort', () => run.controller.abort(new CancelledError()), { once: true });
    } else {
      const tree = newTree(source.runId, settings, options.budget, options.signal, this.#team(source.runId, source.definition.name, source.team ?? undefined), this.#options.mcp, options.runContext);
      const permissionMode = await this.#mode(source.definition, options.permissionMode ?? settings.permissionMode, tree.controller.signal, tree.runId);
      run = this.#continued(source, prompt, { parent: null, reportsTo: source.parentId, parentToolUseId: null, tree, settings, background: false, permissionMode });
    }
    const failure = await reisolate(this.#options.worktrees, run, source.definition.baseRef ?? settings['worktrees.baseRef']);
    if (failure) throw new EngineError(failure);
    parent?.children.add(run);
    this.#launch(run);
    return run;
  }

  /** The mode an agent runs under: `current` narrowed by its file's mode, or widened only with the user's consent. */
  async #mode(definition: AgentDefinition, current: PermissionMode, signal: AbortSignal, runId: string): Promise<PermissionMode> {
    const { mode, refusal, warning } = await this.#consents.resolve(definition, current, signal, runId);
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
      continued: { messages: source.messages, persisted: source.persisted, usage: source.usage, turns: source.turns, notices: source.problems },
      // A teammate continued (by a message, or its lead's follow-up) is a teammate again: idle between turns.
      teammate: source.member ? new Teammate(source.member) : null,
    });
  }

  /** A team file whose members name agents that cannot run is refused before anything starts. */
  #checkTeam(team: TeamStart, disabled: readonly string[]): void {
    const known = this.#options.catalog.agents.map((a) => a.name);
    for (const member of team.info.members) {
      const definition = this.#options.catalog.find(member.agent);
      if (!definition) throw new EngineError(`Team "${team.info.name}": member "${member.name}" names the agent "${member.agent}", which is not defined. Available: ${known.join(', ') || 'none'} (${team.info.filePath}).`);
      if (disabled.includes(definition.name)) throw new EngineError(`Team "${team.info.name}": member "${member.name}" names the agent "${definition.name}", which is disabled (setting disabledAgents).`);
    }
  }

  /** The run's team: the one kept here, else a new one (from the run's record when it has one). */
  #team(runId: string, leadName: string, record?: TeamRecord): Team {
    let team = this.#teams.get(runId);
    if (!team) {
      team = new Team({ runId, leadName, record, onTaskChange: (agentId, change, task) => this.#publish(runId, agentId, { type: 'task_changed', change, task }) });
      this.#teams.set(runId, team);
    }
    return team;
  }

  /** The agents of a run SendMessage can reach: those kept here, and the team's members wherever they are. */
  #members(runId: string): ReturnType<Messaging['members']> {
    const team = this.#teams.get(runId);
    const members = [...this.#agents.values()]
      .filter((a) => a.tree.runId === runId)
      .map((a) => ({ agentId: a.id, agentName: a.agentName, ended: a.ended, member: a.teammate?.name ?? team?.memberById(a.id)?.name, leadId: team?.memberById(a.id)?.leadId ?? null }));
    for (const m of team?.members() ?? []) {
      if (!members.some((known) => known.agentId === m.agentId)) members.push({ agentId: m.agentId, agentName: m.name, ended: true, member: m.name, leadId: m.leadId });
    }
    return members;
  }

  /** Stops an agent and its whole subtree. */
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
    void executeAgent(run, this.#execution);
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


  #pruneEnded(): void {
    const ended = [...this.#agents.values()].filter((a) => a.ended && (!a.parent || a.parent.ended));
    for (const run of ended.slice(0, Math.max(0, ended.length - ENDED_AGENTS_KEPT))) this.#agents.delete(run.id);
    // A run none of whose agents is kept here any more gets its team back from the history when it is continued.
    const runs = new Set([...this.#agents.values()].map((a) => a.tree.runId));
    for (const runId of this.#teams.keys()) if (!runs.has(runId)) this.#teams.delete(runId);
  }
}
