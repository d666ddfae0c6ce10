import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ContinueOptions, SendOutcome } from '../core/engine/engine';
import { EngineError } from '../core/engine/errors';
import { newMailId } from '../core/engine/mail';
import { WorktreeManager, type WorktreeRecord } from '../core/isolation';
import { worktreePoolSize } from '../core/config';
import { RunHistory } from '../core/runs/history';
import { RunStore } from '../core/runs/runStore';
import { ModeConsents } from '../core/tools/modeConsent';
import { PermissionGate } from '../core/tools/permissions';
import type { AgentNode, RunSnapshot } from '../protocol/runSnapshot';
import type { ApiKeys } from './apiKey';
import { askModeWidening, VsCodeApprovals } from './approvals';
import { FolderScopes, type FolderScope } from './scopes';
import { affectsSettings, readSettings, userOnlySettings, watchHistorySettings } from './settings';
import { historyLimits, storeLimits } from '../core/runs/historySettings';
import { CommandHooks } from '../core/hooks/commandHooks';
import { McpStatusStore, statusFile } from '../core/mcp/status';
import { VsCodeEditorTools } from './editorTools';
import { McpInputs } from './mcpInputs';
import { trustWhen } from '../core/trust/projectTrust';

/**
 * Everything the extension runs on, wired the way the CLI session wires it
 * (src/cli/session.ts): one RunStore fed by every folder's engine and kept on
 * disk by one RunHistory, one WorktreeManager, one permission gate that asks
 * in VS Code, one API-key source. Lives as long as the extension; the
 * surfaces (commands, view, transcript documents) only read from here.
 */
export class Services implements vscode.Disposable {
  /** Worktrees with changes found at start-up, left by runs that were interrupted. */
  keptWorktrees: WorktreeRecord[] = [];
  readonly #disposables: vscode.Disposable[] = [];
  #detachHistory: () => void = () => undefined;

  private constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    readonly keys: ApiKeys,
    readonly approvals: VsCodeApprovals,
    readonly history: RunHistory,
    readonly store: RunStore,
    readonly worktrees: WorktreeManager,
    readonly scopes: FolderScopes,
  ) {}

  /** `keys` is made (and disposed) by activation, which needs it before the rest exists (the chat models). */
  static async create(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, keys: ApiKeys): Promise<Services> {
    const storage = context.globalStorageUri.fsPath;
    // Caps and retention come from the user's settings alone (the history is shared); #watch applies changes at once.
    const { settings, problems } = userOnlySettings();
    for (const problem of problems) log.warn(problem);
    const approvals = new VsCodeApprovals(log);
    const history = await RunHistory.open({
      dir: path.join(storage, 'history'),
      ...historyLimits(settings),
      log: (level, message) => log[level](message),
    });
    const store = new RunStore({ coalesceMs: 100, ...storeLimits(settings) });
    const worktrees = new WorktreeManager({
      stateDir: path.join(storage, 'worktrees', 'state'),
      worktreesRoot: path.join(storage, 'worktrees', 'trees'),
      // Window-level, read each time a worktree is done, so a change applies at once.
      poolSize: () => worktreePoolSize(readSettings().settings),
      log: (level, message) => (level === 'debug' ? log.debug(message) : log[level](message)),
    });
    const editorTools = new VsCodeEditorTools();
    // The same place the CLI and the language server use, so each sees what the others started.
    const mcpStatus = new McpStatusStore(statusFile(process.env, os.homedir()));
    const mcpInputs = new McpInputs();
    const scopes = new FolderScopes({
      log,
      keys,
      gate: new PermissionGate(approvals.handler),
      history,
      worktrees,
      store,
      bundledDir: path.join(context.extensionPath, 'agents'),
      trusted: () => vscode.workspace.isTrusted,
      // Project-defined code (hooks) follows workspace trust, read at every agent, so trust granted mid-session applies to the next one.
      trust: trustWhen(() => vscode.workspace.isTrusted),
      hooks: new CommandHooks({
        home: os.homedir(),
        enabled: () => readSettings().settings['hooks.enabled'],
        log: (level, message) => log[level](message),
      }),
      modeConsents: new ModeConsents({ file: path.join(storage, 'mode-consents.json'), ask: askModeWidening }),
      editorTools,
      mcpStatus,
      askMcpInputs: (server, ids) => mcpInputs.ask(server, ids),
      // Our own storage folder's parent is this editor's (VS Code, Insiders, VSCodium, code-server): Roo Code's and Kilo's are beside it.
      editorStorage: path.dirname(storage),
    });
    const services = new Services(context, log, keys, approvals, history, store, worktrees, scopes);
    services.#detachHistory = history.attach(store);
    // Messages and stops other processes (`subagents send`, another window) leave for agents running here.
    const unwatch = history.mailbox.watch((entry) => scopes.all.some((scope) => scope.engine.receive(entry)));
    services.#disposables.push({ dispose: unwatch });
    services.#disposables.push(approvals, scopes);
    services.#watch();
    await scopes.sync();
    // What VS Code's tools are, for the language server's completions: now, and when agents change or runs
    // do (VS Code says nothing when its tools change), at most every few seconds.
    let recordedAt = 0;
    const recordEditorTools = () => {
      if (Date.now() - recordedAt < 5000) return;
      recordedAt = Date.now();
      editorTools.record(mcpStatus);
    };
    recordEditorTools();
    services.#disposables.push(scopes.onDidChangeAgents(recordEditorTools), { dispose: store.subscribe(recordEditorTools) });
    return services;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  #watch(): void {
    this.#disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsSettings(e)) void this.scopes.reload().catch((error: unknown) => this.log.error(`Reloading settings failed: ${String(error)}`));
      }),
      watchHistorySettings(this.history, this.store, (problem) => this.log.warn(problem)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.scopes.sync()),
      // Once the workspace is trusted, project and plugin agents load without a reload.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info('Workspace trusted: loading project and plugin agents.');
        void this.scopes.reload(true);
      }),
    );
  }

  /**
   * Start-up clean-up of worktrees left by runs that died: unchanged
   * ones are pruned, changed ones kept and reported (log and view).
   */
  async recoverWorktrees(): Promise<void> {
    try {
      const report = await this.worktrees.recover();
      if (report.removed.length) this.log.info(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.`);
      this.keptWorktrees = report.kept;
      for (const rec of report.kept) {
        this.log.warn(`Kept the worktree of ${rec.agentName} (${rec.agentId}) with ${rec.info.filesChanged} changed file(s) on branch ${rec.branch}: ${rec.path}. Review, apply or discard it with "Subagents: Review Changes" (or "Subagents: Clean Up Worktrees").`);
      }
    } catch (error) {
      this.log.error(`Could not check for leftover worktrees: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The running agent with this id, and the engine that runs it. */
  runningAgent(agentId: string): FolderScope | undefined {
    return this.scopes.all.find((s) => s.engine.find(agentId)?.ended === false);
  }

  /**
   * Sends a message to an agent: the folder scope whose engine knows
   * it takes it (at work: read at its next turn; ended: continued), or its
   * run's folder scope, which finds it in the history (or hands it to the
   * process at work on it, through the mailbox).
   */
  sendMessage(agentId: string, text: string, via: string, options: ContinueOptions = {}): Promise<SendOutcome> {
    const run = this.runOf(agentId);
    const scope = this.scopes.all.find((s) => s.engine.find(agentId)) ?? (run && this.folderOf(run)) ?? this.scopes.preferred()[0];
    if (!scope) return Promise.reject(new EngineError('No folder is open: agents run in a workspace folder.'));
    return scope.engine.send(agentId, { text, via }, options);
  }

  /**
   * Stops one agent and the agents it started (its parent is told and goes
   * on): here when it runs here, else through the mailbox when another
   * process (a terminal's `subagents run`, another window) runs it.
   */
  async stopAgent(agentId: string, reason: string, via: string): Promise<'stopped' | 'sent' | 'not running'> {
    if (this.runningAgent(agentId)?.engine.cancel(agentId, reason)) return 'stopped';
    const archived = await this.history.load(agentId);
    if (!archived || archived === 'expired' || !archived.runningIn || archived.runningIn === 'this process') return 'not running';
    await this.history.mailbox.post({ id: newMailId(), agentId, runId: archived.node.runId, kind: 'stop', text: reason, from: null, via, sentAt: Date.now() });
    return 'sent';
  }

  /** Stops every agent of a run at work here (chat's `/stop` without a name); returns how many trees it stopped. */
  stopRunOf(runId: string, reason: string): number {
    return this.scopes.all.reduce((sum, scope) => sum + scope.engine.cancelRun(runId, reason), 0);
  }

  agentNode(agentId: string): AgentNode | undefined {
    return this.store.agent(agentId);
  }

  runOf(agentId: string): RunSnapshot | undefined {
    const node = this.store.agent(agentId);
    return node ? this.store.get(node.runId) : undefined;
  }

  /** The folder scope a run belongs to (for follow-ups and the view's folder label). */
  folderOf(run: RunSnapshot): FolderScope | undefined {
    const nodes = Object.values(run.agents);
    const repos = nodes.map((n) => this.worktrees.get(n.agentId)?.repoRoot).filter((p): p is string => Boolean(p));
    return this.scopes.folderOfRun(run.runId, [...nodes.map((n) => n.cwd), ...repos]);
  }

  #disposed: Promise<void> | null = null;

  /** Stops every run, gives them a moment to record how they ended, then saves the history. Idempotent. */
  dispose(): Promise<void> {
    return (this.#disposed ??= this.#shutDown());
  }

  async #shutDown(): Promise<void> {
    const ending = this.scopes.all.flatMap((s) => s.engine.running.map((r) => r.done));
    for (const scope of this.scopes.all) scope.engine.cancelAll('VS Code is closing the window.');
    await Promise.race([Promise.all(ending), new Promise((r) => setTimeout(r, 1500))]);
    // Every MCP server a run of this window started stops with it (the rest is the process watchdog's job).
    await Promise.race([Promise.all(this.scopes.all.map((s) => s.mcp.close())), new Promise((r) => setTimeout(r, 3000))]);
    try {
      await this.history.flush();
    } catch (error) {
      this.log.error(`Could not save the run history: ${String(error)}`);
    }
    this.#detachHistory();
    for (const d of this.#disposables.splice(0).reverse()) d.dispose();
    this.worktrees.dispose();
  }
}
