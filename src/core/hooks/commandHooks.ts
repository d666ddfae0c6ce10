import type { LifecycleHooks, SubagentInfo, TaskHookInfo, TeamHookInfo, TeamHookVerdict } from '../engine/tree/lifecycleHooks';
import { matchesEveryAgent, selectHooks, UNMATCHED_EVENTS, type CommandHook, type HookEventName, type HookGroup } from './hookSettings';
import { testPatterns, timeoutMessage, type PatternResult } from '../regex/boundedRegex';
import { interpretStart, interpretStop, interpretTeamHook, subagentStartInput, subagentStopInput, taskInput, teammateIdleInput } from './hookProtocol';
import { HookSettingsFiles } from './hookSettingsFiles';
import { runShellCommand, type ShellCommandResult } from '../shellCommand';
import { childEnv } from '../childEnv';

/**
 * Claude Code-compatible command hooks for SubagentStart and SubagentStop,
 * and the team events TeammateIdle, TaskCreated and TaskCompleted,
 * from `~/.claude/settings.json` and the project's
 * `.claude/settings.json` / `.claude/settings.local.json`. The hooks of one
 * event run in parallel; their effects are combined in settings order. A hook
 * that fails, hangs or prints nonsense is a warning and has no effect: hooks
 * never fail an agent.
 */

export type HookLog = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface CommandHooksOptions {
  /** The user's home, where `~/.claude/settings.json` lives. */
  home: string;
  /** The `hooks.enabled` setting, read at every event. */
  enabled: () => boolean;
  log: HookLog;
  /** Timeout for a hook without its own `timeout`; default 60 s. */
  timeoutMs?: number;
  /** The environment hooks inherit (minus `ANTHROPIC_*`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** When the session started (default: now): hooks added to settings files after it need approval. */
  sessionStart?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class CommandHooks implements LifecycleHooks {
  readonly #options: CommandHooksOptions;
  readonly #files: HookSettingsFiles;
  /** Matcher answers by matcher and agent name. */
  readonly #matcherAnswers = new Map<string, boolean>();
  /** Untrusted project folders already named in the log (once each, not at every agent). */
  readonly #untrustedSaid = new Set<string>();

  constructor(options: CommandHooksOptions) {
    this.#options = options;
    this.#files = new HookSettingsFiles({ home: options.home, log: options.log, sessionStart: options.sessionStart });
  }

  async subagentStart(info: SubagentInfo & { prompt: string }): Promise<{ additionalContext?: string; ran: boolean }> {
    const runs = await this.#runAll('SubagentStart', info, subagentStartInput(info));
    const contexts: string[] = [];
    for (const { hook, result } of runs) {
      const outcome = interpretStart(result);
      if (outcome.warning) this.#warn(info, 'SubagentStart', hook, outcome.warning);
      if (outcome.additionalContext) contexts.push(outcome.additionalContext);
    }
    // An agent file's own start hooks (Kiro's agentSpawn) add what they print to the agent's context.
    const own = await this.#runOwn('SubagentStart', info, subagentStartInput(info));
    for (const { hook, result } of own) {
      const failure = result.timedOut || result.spawnError || result.exitCode !== 0;
      if (failure) this.#warn(info, 'SubagentStart', hook, `failed (${result.timedOut ? 'timed out' : result.spawnError ?? `exit ${result.exitCode}`}); its output is not used`);
      else if (result.stdout.trim()) contexts.push(result.stdout.trim());
    }
    return { ...(contexts.length ? { additionalContext: contexts.join('\n\n') } : {}), ran: runs.length + own.length > 0 };
  }

  async subagentStop(info: SubagentInfo & { lastAssistantMessage: string; stopHookActive: boolean }): Promise<{ continueWith?: string; ran: boolean }> {
    // An agent file's own stop hooks (Kiro's `stop`) run once, when the agent first comes to its end; what they print is not used.
    const own = info.stopHookActive ? [] : await this.#runOwn('SubagentStop', info, subagentStopInput(info));
    for (const { hook, result } of own) if (result.timedOut || result.spawnError || result.exitCode !== 0) this.#warn(info, 'SubagentStop', hook, 'failed');
    const runs = await this.#runAll('SubagentStop', info, subagentStopInput(info));
    const reasons: string[] = [];
    for (const { hook, result } of runs) {
      const outcome = interpretStop(result);
      if (outcome.warning) this.#warn(info, 'SubagentStop', hook, outcome.warning);
      if (outcome.continueWith) reasons.push(outcome.continueWith);
    }
    return { ...(reasons.length ? { continueWith: reasons.join('\n\n') } : {}), ran: runs.length + own.length > 0 };
  }

  /** The agent file's own hooks of the event: a project file's only in a folder the engine's trust covers. */
  async #runOwn(event: HookEventName, info: SubagentInfo, input: Record<string, unknown>): Promise<Array<{ hook: CommandHook; result: ShellCommandResult }>> {
    const own = (info.ownHooks ?? []).filter((hook) => hook.event === event);
    if (own.length === 0 || !this.#options.enabled()) return [];
    const runnable = own.filter((hook) => !hook.project || info.trust.isTrusted(info.cwd));
    if (runnable.length < own.length && !this.#untrustedSaid.has(`${own[0]!.source}`)) {
      this.#untrustedSaid.add(own[0]!.source);
      this.#log(info)('info', `The hooks of agent file ${own[0]!.source} do not run: its project folder is not trusted.`);
    }
    const env = hookEnvironment(this.#options.env ?? process.env, info.cwd);
    return Promise.all(
      runnable.map(async (own) => {
        const hook: CommandHook = { command: own.command, timeoutSec: own.timeoutSec, source: own.source };
        const result = await runShellCommand({
          command: hook.command,
          cwd: info.cwd,
          env,
          stdin: JSON.stringify(input),
          signal: info.signal,
          timeoutMs: hook.timeoutSec !== null ? hook.timeoutSec * 1000 : (this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        });
        this.#log(info)('info', `${event} hook ${describeHook(hook)} of agent "${info.agentName}": ${result.timedOut ? 'timed out' : `exit ${result.exitCode}`} in ${result.durationMs} ms`);
        return { hook, result };
      }),
    );
  }

  teammateIdle(info: SubagentInfo & TeamHookInfo): Promise<TeamHookVerdict> {
    return this.#team('TeammateIdle', info, teammateIdleInput(info));
  }

  taskCreated(info: SubagentInfo & TaskHookInfo): Promise<TeamHookVerdict> {
    return this.#team('TaskCreated', info, taskInput('TaskCreated', info));
  }

  taskCompleted(info: SubagentInfo & TaskHookInfo): Promise<TeamHookVerdict> {
    return this.#team('TaskCompleted', info, taskInput('TaskCompleted', info));
  }

  /** A team event: any hook that blocks blocks (their feedback joined), any that stops stops. */
  async #team(event: HookEventName, info: SubagentInfo, input: Record<string, unknown>): Promise<TeamHookVerdict> {
    const runs = await this.#runAll(event, info, input);
    const blocks: string[] = [];
    const stops: string[] = [];
    for (const { hook, result } of runs) {
      const outcome = interpretTeamHook(result, event);
      if (outcome.warning) this.#warn(info, event, hook, outcome.warning);
      if (outcome.block !== undefined) blocks.push(outcome.block);
      if (outcome.stop !== undefined) stops.push(outcome.stop);
    }
    return {
      ...(blocks.length ? { block: blocks.join('\n\n') } : {}),
      ...(stops.length ? { stop: stops.filter(Boolean).join('\n') } : {}),
      ran: runs.length > 0,
    };
  }

  /** Runs every matching hook of the event; results in settings order, whatever order they finish in. */
  async #runAll(event: HookEventName, info: SubagentInfo, input: Record<string, unknown>): Promise<Array<{ hook: CommandHook; result: ShellCommandResult }>> {
    if (!this.#options.enabled()) return [];
    // Project settings run commands: read only for a folder the engine's project trust covers, asked at every event.
    const { projectDir, settings, untrustedProjectDir } = await this.#files.sources(info.cwd, (dir) => info.trust.isTrusted(dir), info.worktree ?? null);
    if (untrustedProjectDir && !this.#untrustedSaid.has(untrustedProjectDir)) {
      this.#untrustedSaid.add(untrustedProjectDir);
      this.#log(info)('info', `The project hooks of ${untrustedProjectDir} do not run: the folder is not trusted.`);
    }
    const matched = UNMATCHED_EVENTS.has(event) ? new Map<string, boolean>() : await this.#matchers(settings.flatMap((source) => source.events[event]), info.agentName, this.#log(info));
    const hooks = await this.#approved(event, selectHooks(settings, event, info.agentName, (group) => matched.get(group.matcher) ?? true), info);
    if (hooks.length === 0) return [];
    const env = hookEnvironment(this.#options.env ?? process.env, projectDir);
    const stdin = JSON.stringify(input);
    return Promise.all(
      hooks.map(async (hook) => {
        const result = await runShellCommand({
          command: hook.command,
          cwd: projectDir,
          env,
          stdin,
          signal: info.signal,
          timeoutMs: hook.timeoutSec !== null ? hook.timeoutSec * 1000 : (this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        });
        const status = result.timedOut ? 'timed out' : result.spawnError ? 'did not start' : result.exitCode === null ? `killed by ${result.signal}` : `exit ${result.exitCode}`;
        this.#log(info)('info', `${event} hook ${describeHook(hook)} for agent "${info.agentName}": ${status} in ${result.durationMs} ms`);
        return { hook, result };
      }),
    );
  }

  /**
   * Whether each matcher (a regex from a settings file) matches the agent's
   * name, run off the main thread within a deadline (boundedRegex.ts): a
   * matcher that backtracks for ever on a long agent name matches nothing
   * and is reported once, instead of stopping the engine. Answers are kept,
   * since the same names come back at every agent start and stop.
   */
  async #matchers(groups: readonly HookGroup[], agentName: string, log: HookLog): Promise<Map<string, boolean>> {
    const answers = new Map<string, boolean>();
    const ask: string[] = [];
    for (const { matcher } of groups) {
      if (matchesEveryAgent(matcher) || answers.has(matcher)) continue;
      const known = this.#matcherAnswers.get(`${matcher}\0${agentName}`);
      if (known === undefined) ask.push(matcher);
      answers.set(matcher, known ?? false);
    }
    if (ask.length === 0) return answers;
    let results: PatternResult[] = [];
    try {
      results = await testPatterns(ask, [agentName]);
    } catch (error) {
      log('warn', `Hook matchers could not be checked against agent "${agentName}" (${error instanceof Error ? error.message : String(error)}); the hooks they guard do not run for it.`);
      return answers;
    }
    ask.forEach((matcher, i) => {
      const result = results[i];
      if (result && 'timedOut' in result) {
        log('warn', `The hook matcher ${JSON.stringify(matcher)} could not be checked against agent "${agentName}": ${timeoutMessage(matcher)}. The hooks it guards do not run for that agent.`);
      }
      const yes = result !== undefined && 'matches' in result && result.matches[0] === true;
      answers.set(matcher, yes);
      this.#matcherAnswers.set(`${matcher}\0${agentName}`, yes);
    });
    return answers;
  }

  /**
   * The hooks that may run: those the session started with, and new ones
   * the agent's approval for shell commands allows (asked one at a time).
   */
  async #approved(event: HookEventName, hooks: CommandHook[], info: SubagentInfo): Promise<CommandHook[]> {
    const allowed: CommandHook[] = [];
    for (const hook of hooks) {
      if (this.#files.inBaseline(hook)) {
        allowed.push(hook);
        continue;
      }
      const why = `${event} hook from ${hook.source}, added after this session started`;
      const denial = info.approveCommand ? await info.approveCommand(hook.command, why) : 'nobody can approve it here';
      if (denial === null) allowed.push(hook);
      else this.#warn(info, event, hook, `was not run: it was added to its settings file after this session started and needs the approval a shell command needs (${denial}). It runs without asking from the next session on`);
    }
    return allowed;
  }

  #warn(info: SubagentInfo, event: HookEventName, hook: CommandHook, problem: string): void {
    this.#log(info)('warn', `${event} hook ${describeHook(hook)} ${problem}.`);
  }

  /** The log for what one agent's hooks report: the engine's (redacting) when it gave one. */
  #log(info: SubagentInfo): HookLog {
    return info.log ?? this.#options.log;
  }
}

/**
 * The hook's environment: ours minus every `ANTHROPIC_*` variable (the
 * API key never reaches a child process), plus Claude Code's
 * `CLAUDE_PROJECT_DIR` so scripts can find the project from anywhere.
 */
export function hookEnvironment(base: NodeJS.ProcessEnv, projectDir: string): NodeJS.ProcessEnv {
  return { ...childEnv(base), CLAUDE_PROJECT_DIR: projectDir };
}

/** The command (shortened: it is for recognising the hook, not a copy of the script) and its settings file. */
function describeHook(hook: CommandHook): string {
  const command = hook.command.replace(/\s+/g, ' ').trim();
  return `"${command.length > 120 ? `${command.slice(0, 120)}…` : command}" (from ${hook.source})`;
}
