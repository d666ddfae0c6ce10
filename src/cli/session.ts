import { spawn } from 'node:child_process';
import path from 'node:path';
import { AgentCatalog } from '../core/agents/catalog';
import { defaultSettings, worktreePoolOptions, type Settings } from '../core/config';
import { createClient } from '../core/engine/client';
import { Redactor } from '../core/engine/redaction';
import { Engine } from '../core/engine/engine';
import { CommandHooks } from '../core/hooks/commandHooks';
import { RunHistory } from '../core/runs/history';
import { WorktreeManager, type RecoverReport } from '../core/isolation';
import { historyLimits, storeLimits } from '../core/runs/historySettings';
import { RunStore } from '../core/runs/runStore';
import { ModeConsents, type ModeConsentHandler } from '../core/tools/modeConsent';
import type { PermissionGate } from '../core/tools/permissions';
import { userHome, type CliIO } from './command';
import { terminalText } from './render/terminalText';
import { TRUST_NOTHING, type ProjectTrust } from '../core/trust/projectTrust';
import { McpHost } from '../core/mcp/host';
import { cliMcpOptions } from './mcpOptions';

/**
 * What a CLI command that runs agents needs, wired the same way the
 * extension wires it: catalog → engine → events → RunStore, with the run
 * history on disk under `$XDG_DATA_HOME/subagents` (or `~/.local/share`).
 */

export function storageDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_DATA_HOME || path.join(userHome(env), '.local', 'share');
  return path.join(base, 'subagents');
}

/**
 * Writes a problem line to stderr as every CLI log line is written: the key
 * and token of the environment redacted (a git error or a corrupt history
 * file can quote text an agent wrote, and that text can hold the key), and
 * control characters shown, not obeyed.
 */
export function problemLine(io: CliIO): (message: string) => void {
  const redactor = new Redactor(() => [io.env.ANTHROPIC_API_KEY, io.env.ANTHROPIC_AUTH_TOKEN]);
  return (message) => io.stderr.write(`subagents: ${terminalText(redactor.text(message))}\n`);
}

/** Worktrees of isolated agents live beside the history, outside every repository; `settings` size their pool. */
export function openWorktrees(io: CliIO, settings: Settings = defaultSettings()): WorktreeManager {
  const write = problemLine(io);
  const dir = path.join(storageDir(io.env), 'worktrees');
  return new WorktreeManager({
    stateDir: path.join(dir, 'state'),
    worktreesRoot: path.join(dir, 'trees'),
    ...worktreePoolOptions(() => settings),
    log: (level, message) => {
      if (level === 'warn' || level === 'error') write(message);
    },
  });
}

/**
 * Leaves the worktree pool's upkeep (cleaning what discards handed back,
 * deleting removed worktrees, refilling the pool) to a detached
 * `subagents worktrees maintain --background`, so neither this command nor
 * the next one waits for it: the work of a long-lived process (VS Code does
 * it itself when idle), for a CLI that exits. Nothing when there is nothing
 * to do, when the CLI cannot start itself (run inside another program), or
 * when SUBAGENTS_NO_BACKGROUND is set: the work then waits for the next
 * process that may, or for `subagents worktrees maintain`.
 */
export async function handOffUpkeep(io: CliIO, worktrees: WorktreeManager): Promise<void> {
  if (!io.self || io.env.SUBAGENTS_NO_BACKGROUND) return;
  try {
    if (!(await worktrees.upkeepPending())) return;
  } catch {
    return;
  }
  const [command, ...args] = io.self;
  // The key is not the upkeep's business.
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...env } = io.env;
  try {
    const child = spawn(command!, [...args, 'worktrees', 'maintain', '--background'], { cwd: io.cwd, env, detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The next process tries again.
  }
}

/**
 * Settles the worktrees of runs whose process died (a crash, a kill):
 * unchanged ones are removed, changed ones committed on their branch and
 * kept. Every command that works with worktrees or runs agents does it
 * first, so a leftover is found by whichever comes next, and said once.
 */
export async function recoverWorktrees(io: CliIO, worktrees: WorktreeManager): Promise<RecoverReport> {
  // The report's `kept` also holds every finished worktree still waiting for review: name only those settled now.
  const pending = new Set((await worktrees.list()).filter((r) => r.state === 'finished').map((r) => r.agentId));
  const report = await worktrees.recover();
  if (report.removed.length) io.stderr.write(`subagents: removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.\n`);
  for (const rec of report.kept.filter((r) => !pending.has(r.agentId))) {
    io.stderr.write(
      terminalText(`subagents: kept the worktree of ${rec.agentName} (${rec.agentId}), left by an interrupted run, with ${rec.info.filesChanged} changed file(s) on branch ${rec.branch}: see "subagents worktrees diff ${rec.agentId}", then apply or discard it.`) + '\n',
    );
  }
  return report;
}

/**
 * The run history. A CLI command reads no run whole at open (`loadRuns` 0):
 * it lists from the index and reads the runs and agents it is asked for,
 * so it starts as fast with thousands of runs as with none.
 */
export async function openHistory(io: CliIO, settings: Settings): Promise<RunHistory> {
  const write = problemLine(io);
  return RunHistory.open({
    dir: storageDir(io.env),
    ...historyLimits(settings),
    loadRuns: 0,
    log: (level, message) => {
      if (level !== 'info') write(message);
    },
  });
}

export interface EngineSession {
  settings: Settings;
  catalog: AgentCatalog;
  history: RunHistory;
  store: RunStore;
  engine: Engine;
  /**
   * Waits until no agent works here any more, delivering what is still in
   * the mailbox for the run's agents (a message sent as the process was
   * about to end continues its agent here rather than waiting for another).
   */
  settle(runId: string): Promise<void>;
  close(): Promise<void>;
}

export async function openSession(
  io: CliIO,
  /** `settings` from cliSettings (files, environment, flags); `pluginDirs` are the --plugin-dir flags, added to the setting's. */
  opts: {
    cwd: string;
    pluginDirs: string[];
    settings: Settings;
    gate: PermissionGate;
    modeConsent?: ModeConsentHandler | null;
    coalesceMs: number;
    /** Project trust as decided for the command (src/cli/trust.ts); default: no folder trusted. */
    trust?: ProjectTrust;
    /**
     * The agent the command will start in `cwd`, when it knows: its MCP
     * servers start now, so their start overlaps the rest of the session's
     * (the history read, leftovers settled). Not for an isolated agent (its
     * servers run in its worktree) or in plan mode (no server starts).
     */
    first?: { agent: string };
  },
): Promise<EngineSession> {
  const { settings } = opts;
  // Fails early, before anything is read, when there is no key. ANTHROPIC_BASE_URL wins over settings.apiBaseUrl there.
  const client = createClient({ apiKey: io.env.ANTHROPIC_API_KEY, baseUrl: settings.apiBaseUrl, env: io.env });
  const pluginDirs = [...settings.pluginDirs, ...opts.pluginDirs];
  const catalog = await AgentCatalog.create({ cwd: opts.cwd, home: userHome(io.env), pluginDirs, loadClaudePlugins: settings.loadClaudePlugins, watch: true });
  // A plugin folder of the settings that is not there is named (the flags were checked already); `agents` lists every warning.
  for (const warning of catalog.warnings) {
    if (pluginDirs.some((dir) => path.resolve(opts.cwd, dir) === warning.filePath)) io.stderr.write(`subagents: warning: ${terminalText(warning.message)}\n`);
  }
  const mcp = new McpHost(cliMcpOptions(io, { cwd: opts.cwd, settings, pluginDirs: opts.pluginDirs, trust: opts.trust ?? TRUST_NOTHING, ownSecrets: () => [client.apiKey, client.authToken] }));
  const first = opts.first && catalog.find(opts.first.agent);
  if (first && first.isolation !== 'worktree' && first.permissionMode !== 'plan' && !settings.disabledAgents.includes(first.name)) {
    mcp.prestart({ agentName: first.name, definition: first, cwd: opts.cwd, planMode: false });
  }
  const history = await openHistory(io, settings);
  const store = new RunStore({ coalesceMs: opts.coalesceMs, ...storeLimits(settings) });
  const detach = history.attach(store);
  const worktrees = openWorktrees(io, settings);
  await recoverWorktrees(io, worktrees);
  const engine = new Engine({
    client,
    catalog,
    settings: () => settings,
    gate: opts.gate,
    // Consents for agent files that widen the permission mode outlive the process, as in VS Code.
    modeConsents: new ModeConsents({ file: path.join(storageDir(io.env), 'mode-consents.json'), ask: opts.modeConsent ?? undefined }),
    archive: history,
    mailbox: history.mailbox,
    worktrees,
    // Claude Code command hooks from ~/.claude, and the project's .claude/settings*.json where the folder is trusted.
    trust: opts.trust,
    hooks: new CommandHooks({
      home: userHome(io.env),
      enabled: () => settings['hooks.enabled'],
      env: io.env,
      // Per-run info lines would interleave with the live tree on stderr: problems only, as for worktrees.
      log: (level, message) => {
        if (level !== 'info') io.stderr.write(`subagents: ${level}: ${terminalText(message)}\n`);
      },
    }),
    // Info lines (a plan-mode agent's skipped hooks) would interleave with the live tree: problems only.
    log: (level, message) => {
      if (level !== 'info') io.stderr.write(`subagents: ${level}: ${terminalText(message)}\n`);
    },
    mcp,
  });
  engine.onEvent((event) => store.apply(event));
  // Messages and stops other terminals and windows leave for the agents this command runs.
  const unwatch = history.mailbox.watch((entry) => engine.receive(entry));
  return {
    settings,
    catalog,
    history,
    store,
    engine,
    settle: async (runId) => {
      for (;;) {
        await engine.settled();
        const agents = Object.keys(store.get(runId)?.agents ?? {});
        const waiting = (await Promise.all(agents.map((id) => history.mailbox.pending(id)))).flat().filter((e) => e.kind === 'message' || e.wakes || e.kind === 'stop');
        for (const entry of waiting) engine.receive(entry);
        if (!engine.busy) return;
      }
    },
    close: async () => {
      unwatch();
      await mcp.close();
      // Retention, and the runs of processes that died, once the run is done: not on the way to its first request.
      await history.ready().catch((error: unknown) => problemLine(io)(`could not read the run history: ${error instanceof Error ? error.message : String(error)}`));
      await history.flush();
      detach();
      catalog.dispose();
      await handOffUpkeep(io, worktrees);
      worktrees.dispose();
    },
  };
}
