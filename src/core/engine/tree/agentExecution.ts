import os from 'node:os';
import type Anthropic from '@anthropic-ai/sdk';
import { capText, SNAPSHOT_TEXT_CAPS } from '../../../protocol/runSnapshot';
import { assemblePrompt } from '../../agents/interpretation/promptAssembly';
import { agentColor } from '../../../protocol/agentColor';
import { emptyUsage } from '../../../protocol/runEvents';
import type { Settings } from '../../config';
import type { WorktreeManager } from '../../isolation';
import type { ModeConsents } from '../../tools/modeConsent';
import type { PermissionGate } from '../../tools/permissions';
import type { RuntimeTool } from '../../tools/runtimeTool';
import { TRUST_NOTHING, type ProjectTrust } from '../../trust/projectTrust';
import type { AgentResult, AgentRun, EmitEvent } from './agentRun';
import type { AgentArchive } from './archive';
import { authorizer, type Authorize } from './authorize';
import { CancelledError, EngineError } from '../errors';
import { mountExternalTools } from '../tools/externalTools';
import { startContext, stopInstruction, teamVerdict, type LifecycleHooks, type SubagentInfo } from './lifecycleHooks';
import { idleTurn } from '../team/idleTurn';
import type { TaskListContext } from '../team/taskListTools';
import type { Messenger } from '../messaging/messenger';
import { networkPolicy, type NetworkPolicy } from '../loop/network';
import { runQueryLoop, type LoopOutcome } from '../loop/queryLoop';
import type { Redactor } from '../../redaction';
import type { Messaging } from '../tools/sendMessageTool';
import type { Spawner } from '../tools/spawnTool';
import type { StructuredOutputSlot } from '../loop/structuredOutput';
import { buildSystemPrompt, promptEnvironment } from '../loop/systemPrompt';
import { addTeamTools, buildTools, type ToolsetHost } from '../tools/toolset';
import { settleWorktree } from './worktreeSteps';
import { setUpWorktree } from './worktreeSetup';

/**
 * One agent's life in the engine: waits for its place under the
 * concurrency limit, builds its tools, runs its start hooks and its query
 * loop, saves its transcript as it goes, and once the loop is over stops
 * what it started, settles its worktree, reports how it ended, and hands on
 * what arrived too late (messenger.ts). Every event leaves through
 * `publish`, redacted.
 */

/** What the engine's options give every agent it runs. */
export interface ExecutionOptions {
  client: Anthropic;
  /** Read at every run and spawn, so setting changes apply to the next one. */
  settings: () => Settings;
  maxTokens?: number;
  /** Overrides of the timeouts and retries the `subagents.network.*` settings give; tests use short ones. */
  network?: Partial<NetworkPolicy>;
  /** Keeps transcripts and finds ended agents after a restart (the run history). */
  archive?: AgentArchive;
  /** SubagentStart / SubagentStop hooks. */
  hooks?: LifecycleHooks;
  /**
   * Whether a folder's own code (its hooks, later its MCP servers) may run:
   * the one place every such runner asks. Default: no folder is trusted.
   */
  trust?: ProjectTrust;
  /** Git worktrees for isolated agents; without it, isolation is refused. */
  worktrees?: WorktreeManager;
  /**
   * The user's environment and home as the client that asked has them, for
   * what a prompt brings in (opencode's `{env:…}`, `~/` paths): in the agent
   * host, `process.env` is the host's, not the shell's. Default: this process's.
   */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** What running an agent needs from the engine. */
export interface ExecutionHost {
  readonly options: ExecutionOptions;
  readonly gate: PermissionGate;
  /** Asks whether an agent file may loosen its approvals (its mode, its `allow` rules). */
  readonly consents?: ModeConsents;
  readonly redactor: Redactor;
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  readonly spawner: Spawner;
  readonly messaging: Messaging;
  readonly messenger: Messenger;
  publish(runId: string, agentId: string, event: Parameters<EmitEvent>[0]): void;
  /** The agent has ended: the engine may forget older ended agents. */
  ended(run: AgentRun): void;
}

/** How a hook command appears to the permission gate: a shell command. */
const HOOK_COMMAND = { name: 'Hook', kind: 'exec' } as const;

/**
 * The one way an agent's events leave the engine: every string redacted;
 * streamed text redacted across chunk boundaries (an end that could be the
 * start of a secret waits for the next chunk or the next event).
 */
function emitter(run: AgentRun, host: ExecutionHost): EmitEvent {
  const text = host.redactor.stream();
  const send: EmitEvent = (partial) => host.publish(run.tree.runId, run.id, partial);
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

/** Runs `run` to its end; never throws (a failure is the agent's result). */
export async function executeAgent(run: AgentRun, host: ExecutionHost): Promise<void> {
  const emit = emitter(run, host);
  const settings = host.options.settings();
  const structured: StructuredOutputSlot | null = run.outputSchema ? { value: undefined, wrapped: false } : null;
  let tools = new Map<string, RuntimeTool>();
  let external: Awaited<ReturnType<typeof mountExternalTools>> | null = null;
  let outcome: LoopOutcome;
  // Nothing of an agent whose run another process works on may reach its transcript.
  let recorded = !host.options.archive;
  try {
    await run.slot.take();
    run.status = 'running';
    run.startedAt = Date.now();
    const toolset: ToolsetHost = { spawner: host.spawner, messaging: host.messaging, taskList: taskListContext(run, emit, host) };
    tools = buildTools(run, settings, structured, toolset);
    const own = tools;
    run.onLead = () => addTeamTools(run, host.options.settings(), own, toolset);
    if (run.teammate) run.tree.team.atWork(run.id, true);
    emit({
      type: 'agent_started',
      parentId: run.parent?.id ?? null,
      parentToolUseId: run.parentToolUseId,
      agentName: run.agentName,
      // What surfaces show and keep; the agent's conversation has the whole prompt.
      description: capText(run.description, SNAPSHOT_TEXT_CAPS.description),
      prompt: capText(run.prompt, SNAPSHOT_TEXT_CAPS.prompt),
      model: run.model,
      depth: run.depth,
      cwd: run.cwd,
      background: run.background,
      filePath: run.definition.filePath || null,
      resumed: run.resumed,
      color: agentColor(run.definition.color),
      ...(run.teammate ? { member: run.teammate.name } : {}),
      ...(!run.parent && run.tree.team.info ? { team: run.tree.team.info } : {}),
    });
    for (const message of run.startNotices) emit({ type: 'notice', level: 'warning', message });
    // A team file's tasks go on the list once every surface knows the run.
    if (!run.parent) run.tree.team.plantSeeds();
    if (run.isolation) {
      const worktrees = host.options.worktrees;
      const command = settings['worktrees.setupCommand'];
      // Before the agent's MCP servers start: a server the project runs from its own files may need what the setup installs.
      if (worktrees) await setUpWorktree({ run, command, worktrees, authorize: authorizerFor(run, emit, host), emit, log: host.log, redact: (text) => host.redactor.text(text) });
      emit({ type: 'worktree_created', path: run.isolation.path, branch: run.isolation.branch, baseCommit: run.isolation.baseCommit });
    }
    // The agent's MCP servers start while its hooks run.
    const mounting = mountExternalTools(run, tools, emit, host.log);
    mounting.catch(() => undefined);
    await startHooks(run, emit, host);
    await host.options.archive?.begin(run.tree.runId);
    recorded = true;
    external = await mounting;
    if (external.fatal) throw new EngineError(external.fatal);
    const env = await promptEnvironment(run.cwd, Boolean(run.isolation), undefined, run.isolation?.branch);
    const planNote = run.planMode ? ['You are in plan mode: you may read and search, but not change anything. Finish with a clear, concrete plan.'] : [];
    // The files a definition brings into its prompt are read now, as the agent starts (see promptAssembly.ts).
    const trust = host.options.trust ?? TRUST_NOTHING;
    const prompt = await assemblePrompt(run.definition, { cwd: run.cwd, home: host.options.home ?? os.homedir(), env: host.options.env ?? process.env, trusted: (folder) => trust.isTrusted(folder) });
    for (const warning of prompt.warnings) host.log('warn', `Agent "${run.agentName}" (${run.id}): ${warning}.`);
    outcome = await runQueryLoop(run, {
      client: host.options.client,
      tools,
      system: buildSystemPrompt(prompt.text, env, planNote),
      authorize: authorizerFor(run, emit, host),
      maxTokens: host.options.maxTokens ?? 16_384,
      network: networkPolicy(settings, host.options.network),
      structured,
      emit,
      redact: (value) => host.redactor.value(value),
      onUsage: (delta) => run.budget.add(delta),
      persist: () => persist(run, host, emit),
      // Hooks are commands: none runs in a plan-mode tree (#startHooks said so in the log).
      beforeComplete: (output, round) =>
        run.planMode
          ? Promise.resolve(null)
          : stopInstruction(host.options.hooks, { ...hookInfo(run, emit, host), lastAssistantMessage: host.redactor.text(output) }, round, host.log, () => run.written?.writtenByOthers()),
      ...(run.teammate
        ? {
            idle: (output: string, round: number) =>
              idleTurn(run, output, round, {
                emit,
                hooks: () => (run.planMode ? Promise.resolve({}) : teamVerdict(host.options.hooks, 'teammateIdle', { ...hookInfo(run, emit, host), ...teamHookInfo(run) }, host.log, () => run.written?.writtenByOthers())),
              }),
          }
        : {}),
    });
    run.sealed = true;
  } catch (error) {
    // Only waiting for a concurrency slot, the worktree's setup command, a run another process works on, or a required MCP server that could not start can throw here.
    outcome = run.signal.aborted
      ? { status: 'cancelled', output: null, error: run.signal.reason instanceof Error ? run.signal.reason.message : 'Cancelled.' }
      : { status: 'failed', output: null, error: error instanceof Error ? error.message : String(error) };
  } finally {
    run.sealed = true;
    if (recorded) persist(run, host, emit);
    external?.dispose();
    for (const tool of tools.values()) await Promise.resolve(tool.close?.()).catch(() => undefined);
    run.slot.close();
  }
  run.onLead = null;
  // Its teammates end with it: at once when idle, after their turn when at work (unless it failed: then they stop).
  for (const child of run.children) {
    if (child.ended || !child.teammate) continue;
    if (outcome.status === 'completed' || child.teammate.idle) child.teammate.end(`Its lead "${run.agentName}" ended.`);
    else child.controller.abort(new CancelledError(`Its lead "${run.agentName}" ${outcome.status === 'cancelled' ? 'was stopped' : 'ended'}.`));
  }
  // An agent does not outlive its parent's interest: children still running are stopped with it.
  for (const child of run.children) if (!child.ended && !child.teammate) child.controller.abort(new CancelledError(`Its parent agent "${run.agentName}" ended.`));
  await Promise.all([...run.children].map((c) => c.done));
  if (run.teammate) run.tree.team.atWork(run.id, false);
  // The tree's MCP servers stop with it: its root is the last agent of the tree to end.
  if (!run.parent) await run.tree.mcp?.close();
  await settleWorktree(host.options.worktrees, run, host.log, (text) => host.redactor.text(text));
  // Its transcript is saved (or the user was told it could not be) before anyone hears it ended: a follow-up reads it.
  await run.saving;

  const result: AgentResult = host.redactor.value({
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
  run.next = host.messenger.afterEnd(run, run.inbox.drain(), result.status === 'cancelled');
  run.finish(result);
  // A parent that waits for its children at work sees one fewer (an ended teammate may leave no result).
  run.parent?.inbox.nudge();
  await host.messenger.resultReady(run).catch((error: unknown) => host.log('error', `The result of agent ${run.id} could not be kept for its parent: ${(error as Error).message}`));
  host.ended(run);
}

function authorizerFor(run: AgentRun, emit: EmitEvent, host: ExecutionHost): Authorize {
  const consents = host.consents;
  return authorizer(
    run,
    host.gate,
    emit,
    (text) => host.redactor.text(text),
    () => host.options.settings()['isolation.autoApproveEdits'],
    consents && ((level, origins) => consents.allowRules(run.definition, run.permissionMode, level, origins, run.signal, run.tree.runId)),
  );
}

function hookInfo(run: AgentRun, emit: EmitEvent, host: ExecutionHost): SubagentInfo {
  const authorize = authorizerFor(run, emit, host);
  let asked = 0;
  return {
    // A hook the session did not start with runs only with this agent's approval for a shell command.
    approveCommand: async (command, why) =>
      (
        await authorize({
          tool: HOOK_COMMAND,
          toolUseId: `hook_${run.id}_${++asked}`,
          summary: `${command} (${why})`,
          preview: () => Promise.resolve({ kind: 'command', command }),
        })
      )?.message ?? null,
    runId: run.tree.runId,
    agentId: run.id,
    agentName: run.agentName,
    parentId: run.parent?.id ?? null,
    cwd: run.cwd,
    worktree: run.isolation ? { path: run.isolation.path, repoRoot: run.isolation.repoRoot } : null,
    permissionMode: run.permissionMode,
    trust: host.options.trust ?? TRUST_NOTHING,
    transcriptPath: host.options.archive?.transcriptPath(run.id) ?? null,
    signal: run.signal,
    // What hooks report (their stderr among it) leaves through the engine's redaction, as every log line does.
    log: host.log,
    ownHooks: (run.definition.hooks ?? []).map((hook) => ({ ...hook, source: run.definition.filePath, project: run.definition.source === 'project' })),
  };
}

/** The team names a team hook gets: the agent's in its team (a teammate's name, else its agent name), and the team's. */
function teamHookInfo(run: AgentRun): { teammateName: string; teamName: string } {
  return { teammateName: run.teammate?.name ?? run.agentName, teamName: run.tree.team.name };
}

/** The run's task list as `run` acts on it, with the TaskCreated and TaskCompleted hooks. */
function taskListContext(run: AgentRun, emit: EmitEvent, host: ExecutionHost): TaskListContext {
  const team = run.tree.team;
  const verdict = (event: 'taskCreated' | 'taskCompleted', task: { id: string; subject: string; description: string }) =>
    run.planMode
      ? Promise.resolve({})
      : teamVerdict(host.options.hooks, event, { ...hookInfo(run, emit, host), ...teamHookInfo(run), taskId: task.id, taskSubject: task.subject, taskDescription: task.description }, host.log, () => run.written?.writtenByOthers());
  return {
    team,
    actor: () => team.actor(run.id, run.agentName),
    created: (task) => verdict('taskCreated', task),
    completed: (task) => verdict('taskCompleted', task),
    stop: (reason) => run.teammate?.end(`A hook ended it: ${reason || 'no reason given'}`, true),
  };
}

/** SubagentStart hooks may add context: it goes in front of the agent's task. */
async function startHooks(run: AgentRun, emit: EmitEvent, host: ExecutionHost): Promise<void> {
  if (run.planMode) {
    // Nothing in a plan-mode run tree changes a file or runs a command, and a hook is a command.
    if (host.options.hooks) host.log('info', `The SubagentStart and SubagentStop hooks of agent "${run.agentName}" (${run.id}) do not run: it is in plan mode, where nothing runs a command.`);
    return;
  }
  const context = await startContext(host.options.hooks, { ...hookInfo(run, emit, host), prompt: host.redactor.text(run.prompt) }, host.log, () => run.written?.writtenByOthers());
  const first = run.messages[run.persisted];
  if (context && first?.role === 'user' && Array.isArray(first.content)) first.content.unshift({ type: 'text', text: context });
}

/**
 * Appends what the transcript on disk does not have yet, one write after
 * another; the messages and results delivered in it leave the mailbox once
 * it is written. A write that fails (after the store's own retries) is not
 * counted as saved: the next turn's write carries those messages again, and
 * the user is told once that the conversation is not saved (and again once
 * it is), so a follow-up never loses part of it without a word.
 */
function persist(run: AgentRun, host: ExecutionHost, emit: EmitEvent): void {
  run.toAcknowledge.push(...run.inbox.toSave());
  const archive = host.options.archive;
  run.saving = run.saving.then(async () => {
    const upTo = run.messages.length;
    if (archive && run.persisted < upTo) {
      try {
        await archive.appendTranscript(run.id, host.redactor.value(run.messages.slice(run.persisted, upTo)));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        host.log('error', `Could not save the transcript of agent ${run.id}: ${reason}`);
        if (run.unsaved === null) {
          emit({ type: 'notice', level: 'warning', message: `The conversation could not be saved to this agent's transcript (${reason}). It is tried again at its next turn; until then a follow-up from another window or terminal would miss its newest messages.` });
        }
        run.unsaved = reason;
        return;
      }
      run.persisted = upTo;
      if (run.unsaved !== null) {
        run.unsaved = null;
        emit({ type: 'notice', level: 'info', message: "The conversation is saved to this agent's transcript now." });
      }
    }
    host.messenger.acknowledge(run.toAcknowledge.splice(0));
  });
}
