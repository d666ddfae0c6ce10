import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { EngineError } from '../core/engine/errors';
import type { WorktreeManager, WorktreeRecord } from '../core/isolation';
import { McpStatusStore, statusFile } from '../core/mcp/status';
import type { AgentRuntime, SendResult, StopOutcome } from '../core/runtime/api';
import { userDataDir } from '../core/runtime/userDirs';
import type { TranscriptStore } from '../core/runs/transcripts';
import type { PermissionMode } from '../core/tools/permissions';
import type { AgentNode, RunSnapshot } from '../protocol/runSnapshot';
import type { ApiKeys } from './apiKey';
import { VsCodeApprovals } from './approvals';
import { FolderScopes, type FolderScope } from './scopes';
import { affectsSettings, userOnlySettings } from './settings';
import { VsCodeEditorTools } from './editorTools';
import { McpInputs } from './mcpInputs';
import { adoptWindowHistory } from './legacyHistory';
import { hostBackend, windowBackend, windowSettings, type BackendParts, type RuntimeBackend } from './backends';

/**
 * The agent host, unless turned off or out of reach: then this window's own
 * runtime, and the log says why (its runs end with the window).
 */
async function chooseBackend(parts: BackendParts): Promise<RuntimeBackend> {
  const { log } = parts;
  if (!windowSettings()['host.enabled']) {
    log.info('Agents run in this window (subagents.host.enabled is off): they end with it.');
    return windowBackend(parts);
  }
  try {
    const backend = await hostBackend(parts, (state, detail) => (state === 'connected' ? log.info(`Connected to the ${detail}.`) : log.warn(detail)));
    return backend;
  } catch (error) {
    log.warn(`The agent host could not be reached or started (${error instanceof Error ? error.message : String(error)}); agents run in this window and end with it.`);
    return windowBackend(parts);
  }
}

/**
 * Everything the extension runs on: the runtime that runs the agents (its
 * snapshots, approvals and narrow handles: src/core/runtime/api.ts), the
 * folder scopes (each folder's agents and settings), the worktrees to
 * review, one permission surface that asks in VS Code, one API-key source.
 * Lives as long as the extension; the surfaces (commands, views, chat,
 * transcript documents) act only through here, never on engine objects.
 */

export class Services implements vscode.Disposable {
  /** Worktrees with changes found at start-up, left by runs that were interrupted. */
  keptWorktrees: WorktreeRecord[] = [];
  readonly #disposables: vscode.Disposable[] = [];
  readonly #poolChanged = new vscode.EventEmitter<void>();
  /** The pool of reusable worktrees changed: for the Worktrees row. */
  readonly onDidChangePool = this.#poolChanged.event;

  private constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    readonly keys: ApiKeys,
    readonly approvals: VsCodeApprovals,
    readonly scopes: FolderScopes,
    readonly backend: RuntimeBackend,
  ) {}

  /** `keys` is made (and disposed) by activation, which needs it before the rest exists (the chat models). */
  static async create(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, keys: ApiKeys): Promise<Services> {
    const editorTools = new VsCodeEditorTools();
    // The same place the CLI and the language server use, so each sees what the others started.
    const mcpStatus = new McpStatusStore(statusFile(process.env, os.homedir()));
    const mcpInputs = new McpInputs();
    const dataDir = userDataDir(process.env);
    try {
      const adopted = await adoptWindowHistory(context.globalStorageUri.fsPath, dataDir);
      if (adopted) log.info(`Copied ${adopted} run(s) kept by an earlier version to the history shared with the subagents CLI (${dataDir}).`);
    } catch (error) {
      log.warn(`Could not copy the runs an earlier version kept to ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const backend = await chooseBackend({ log, extensionPath: context.extensionPath, editorTools, mcpInputs, mcpStatusFile: mcpStatus.file });
    const runtime = backend.runtime;
    const concerned: { services?: Services } = {};
    const approvals = new VsCodeApprovals(log, runtime.approvals, (request) => {
      const run = runtime.store.get(request.runId);
      return !run || !concerned.services || concerned.services.folderOf(run) !== undefined;
    });
    const scopes = new FolderScopes({
      log,
      keys,
      bundledDir: path.join(context.extensionPath, 'agents'),
      trusted: () => vscode.workspace.isTrusted,
      editorTools,
      mcpStatus,
      sessionStart: Date.now(),
      onEvent: (listener) => runtime.onEvent(listener),
      // Our own storage folder's parent is this editor's (VS Code, Insiders, VSCodium, code-server): Roo Code's and Kilo's are beside it.
      editorStorage: path.dirname(context.globalStorageUri.fsPath),
    });
    const services = (concerned.services = new Services(context, log, keys, approvals, scopes, backend));
    services.#disposables.push(approvals, scopes, services.#poolChanged, { dispose: backend.onPoolChange(() => services.#poolChanged.fire()) });
    services.#watch();
    await scopes.sync();
    // What VS Code's tools are, for the language server's completions: now, and when agents change or runs
    // do (VS Code says nothing when its tools change), at most every few seconds.
    let recordedAt = 0;
    let reported = '';
    const recordEditorTools = () => {
      if (Date.now() - recordedAt < 5000) return;
      recordedAt = Date.now();
      editorTools.record(mcpStatus);
      // The agent host runs agents that may name them: told when they changed.
      const now = JSON.stringify(editorTools.all().map((t) => t.id));
      if (now !== reported) backend.editorToolsChanged();
      reported = now;
    };
    recordEditorTools();
    services.#disposables.push(scopes.onDidChangeAgents(recordEditorTools), { dispose: runtime.store.subscribe(recordEditorTools) });
    return services;
  }

  get runtime(): AgentRuntime {
    return this.backend.runtime;
  }

  /** Every run's snapshot (the shared history and what runs now). */
  get store() {
    return this.backend.runtime.store;
  }

  get worktrees(): WorktreeManager {
    return this.backend.worktrees;
  }

  get transcripts(): TranscriptStore {
    return this.backend.transcripts;
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  #watch(): void {
    this.#disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsSettings(e)) void this.scopes.reload().catch((error: unknown) => this.log.error(`Reloading settings failed: ${String(error)}`));
        if (e.affectsConfiguration('subagents.history')) {
          const { settings, problems } = userOnlySettings();
          for (const problem of problems) this.log.warn(problem);
          this.backend.applyUserSettings(settings);
        }
      }),
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
      const report = await this.backend.recoverWorktrees();
      if (report.removed.length) this.log.info(`Removed ${report.removed.length} unchanged worktree(s) left by interrupted runs.`);
      this.keptWorktrees = report.kept;
      for (const rec of report.kept) {
        this.log.warn(`Kept the worktree of ${rec.agentName} (${rec.agentId}) with ${rec.info.filesChanged} changed file(s) on branch ${rec.branch}: ${rec.path}. Review, apply or discard it with "Subagents: Review Changes" (or "Subagents: Clean Up Worktrees").`);
      }
    } catch (error) {
      this.log.error(`Could not check for leftover worktrees: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Sends a message to an agent: at work, it reads it at its next turn; ended,
   * it is continued in the folder its run belongs to (or the preferred one);
   * run by another process, the message waits in the mailbox that process
   * watches.
   */
  sendMessage(agentId: string, text: string, via: string, options: { permissionMode?: PermissionMode; runContext?: unknown } = {}): Promise<SendResult> {
    const run = this.runOf(agentId);
    const scope = (run && this.folderOf(run)) ?? this.scopes.preferred()[0];
    if (!scope && !run) return Promise.reject(new EngineError('No folder is open: agents run in a workspace folder.'));
    return this.runtime.send({ agentId, text, via, scope: scope?.spec(), ...options });
  }

  /**
   * Stops one agent and the agents it started (its parent is told and goes
   * on), wherever it runs: the runtime stops it, or asks the process that
   * runs it (a terminal's `subagents run`) through the mailbox.
   */
  stopAgent(agentId: string, reason: string, via: string): Promise<StopOutcome> {
    return this.runtime.stop({ agentId, reason, via });
  }

  /** Stops every agent of a run (chat's `/stop` without a name); resolves to how many trees it stopped. */
  stopRunOf(runId: string, reason: string): Promise<number> {
    return this.runtime.stopRun(runId, reason);
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

  /** Lets go of the runtime (see the backend for what that does to runs at work), then of everything else. Idempotent. */
  dispose(): Promise<void> {
    return (this.#disposed ??= this.#shutDown());
  }

  async #shutDown(): Promise<void> {
    try {
      await this.backend.close();
    } catch (error) {
      this.log.error(`Could not close the runtime: ${String(error)}`);
    }
    for (const d of this.#disposables.splice(0).reverse()) d.dispose();
  }
}
