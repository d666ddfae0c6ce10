import { spawn } from 'node:child_process';
import path from 'node:path';
import { defaultSettings, worktreePoolOptions, type Settings } from '../core/config';
import { WorktreeManager, type RecoverReport } from '../core/isolation';
import { statusFile } from '../core/mcp/status';
import type { RunHistory } from '../core/runs/history';
import type { ModeConsentHandler } from '../core/tools/modeConsent';
import type { ProjectTrust } from '../core/trust/projectTrust';
import { openRuntime, type Runtime } from '../core/runtime/runtime';
import type { ScopeCatalog } from '../core/runtime/scope';
import type { ScopeSpec } from '../core/runtime/scopeSpec';
import { problemLine } from './problems';
import { cliScope } from './scope';
import { userDataDir as storageDir } from '../core/runtime/userDirs';
import { userHome, type CliIO } from './command';
import { terminalText } from './render/terminalText';

/**
 * What a CLI command that runs agents needs: the runtime (src/core/runtime,
 * built the one way every process builds it) with the run history on disk
 * under `$XDG_DATA_HOME/subagents` (or `~/.local/share`), and the scope the
 * command runs in (its folder, settings, trust and key).
 */

export { userDataDir as storageDir } from '../core/runtime/userDirs';

export { problemLine };

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
 * the next one waits for it: the work of a long-lived process (VS Code and
 * the agent host do it themselves when idle), for a CLI that exits. Nothing
 * when there is nothing to do, when the CLI cannot start itself (run inside
 * another program), or when SUBAGENTS_NO_BACKGROUND is set: the work then
 * waits for the next process that may, or for `subagents worktrees maintain`.
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
 * Says what recovery of worktrees left by runs whose process died found:
 * unchanged ones were removed, changed ones committed on their branch and
 * kept. Every command that works with worktrees or runs agents recovers
 * first, so a leftover is found by whichever comes next, and said once.
 */
export function reportRecovery(io: CliIO, report: RecoverReport, pendingBefore: ReadonlySet<string>): void {
  if (report.removed.length) io.stderr.write(`subagents: removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.\n`);
  for (const rec of report.kept.filter((r) => !pendingBefore.has(r.agentId))) {
    io.stderr.write(
      terminalText(`subagents: kept the worktree of ${rec.agentName} (${rec.agentId}), left by an interrupted run, with ${rec.info.filesChanged} changed file(s) on branch ${rec.branch}: see "subagents worktrees diff ${rec.agentId}", then apply or discard it.`) + '\n',
    );
  }
}

export async function recoverWorktrees(io: CliIO, worktrees: WorktreeManager): Promise<RecoverReport> {
  // The report's `kept` also holds every finished worktree still waiting for review: name only those settled now.
  const pending = new Set((await worktrees.list()).filter((r) => r.state === 'finished').map((r) => r.agentId));
  const report = await worktrees.recover();
  reportRecovery(io, report, pending);
  return report;
}

export { cliScope };
export { openHistory } from './history';

/** What a command that runs agents in this process has: the runtime and the scope it asks for. */
export interface EngineSession {
  settings: Settings;
  runtime: Runtime;
  scope: ScopeSpec;
  close(): Promise<void>;
}

export async function openSession(
  io: CliIO,
  /** `settings` from cliSettings (files, environment, flags); `pluginDirs` are the --plugin-dir flags, added to the setting's. */
  opts: {
    cwd: string;
    pluginDirs: string[];
    settings: Settings;
    modeConsent?: ModeConsentHandler | null;
    coalesceMs: number;
    /** Project trust as decided for the command (src/cli/trust.ts); default: no folder trusted. */
    trust?: ProjectTrust;
    /** The history to use, already open (one that holds a run `send` took to continue here); the session closes it. */
    history?: RunHistory;
    /**
     * The agent the command will start in `cwd`, when it knows: its MCP
     * servers start as soon as its scope is open, so their start overlaps the
     * rest of the command's own. Not for an isolated agent (its servers run
     * in its worktree) or in plan mode (no server starts).
     */
    first?: { agent: string };
    /** The folder's agents as the command discovered them already (`subagents run`), for the scope they were discovered for. */
    catalog?: (spec: ScopeSpec) => Promise<ScopeCatalog> | undefined;
  },
): Promise<EngineSession> {
  const { settings } = opts;
  const write = problemLine(io);
  const scope = cliScope(io, opts);
  const runtime = await openRuntime({
    dataDir: storageDir(io.env),
    settings: () => settings,
    coalesceMs: opts.coalesceMs,
    mcpStatusFile: statusFile(io.env, userHome(io.env)),
    // Consents for agent files that widen the permission mode outlive the process, as in VS Code.
    modeConsent: opts.modeConsent ?? undefined,
    // Info lines (worktrees made, a plan-mode agent's skipped hooks) would interleave with the live tree on stderr: problems only.
    log: (level, message, folder) => {
      // An agent's lines (hooks, the engine) say their level; the history's and the worktrees' are problems as such.
      if (level === 'warn' || level === 'error') write(folder ? `${level}: ${message}` : message);
    },
    onRecovered: (report, pending) => reportRecovery(io, report, pending),
    // The process ends with its run: it holds each run until it has read the mailbox one last time (Runtime.settle).
    holdRuns: true,
    ...(opts.history ? { history: opts.history } : {}),
    // Nothing of the history is read before the first request; see close.
    historyLoadRuns: 0,
    ...(opts.catalog ? { catalogs: async (spec: ScopeSpec) => opts.catalog!(spec) } : {}),
  });
  const opened = await runtime.scope(scope);
  const first = opts.first && opened.catalog.find(opts.first.agent);
  // Only for an agent admission will let start: a refused one starts no server.
  if (first && first.isolation !== 'worktree' && first.permissionMode !== 'plan' && first.userInvocable !== false && !settings.disabledAgents.includes(first.name)) {
    opened.mcp.prestart({ agentName: first.name, definition: first, cwd: opts.cwd, planMode: false });
  }
  // A plugin folder of the settings that is not there is named (the flags were checked already); `agents` lists every warning.
  const pluginDirs = [...settings.pluginDirs, ...opts.pluginDirs];
  for (const warning of opened.catalog.warnings) {
    if (pluginDirs.some((dir) => path.resolve(opts.cwd, dir) === warning.filePath)) io.stderr.write(`subagents: warning: ${terminalText(warning.message)}\n`);
  }
  return {
    settings,
    runtime,
    scope,
    close: async () => {
      // Retention, and the runs of processes that died, once the run is done: not on the way to its first request.
      await runtime.history.ready().catch((error: unknown) => write(`could not read the run history: ${error instanceof Error ? error.message : String(error)}`));
      await runtime.close();
      await handOffUpkeep(io, runtime.worktrees);
    },
  };
}
