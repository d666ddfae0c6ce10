import path from 'node:path';
import * as vscode from 'vscode';
import { worktreePoolOptions, type Settings } from '../core/config';
import { PRODUCT_BUILD, PRODUCT_VERSION } from '../core/host/build';
import { HostClient, WINDOW_COALESCE_MS } from '../core/host/client';
import { connectOrLaunch } from '../core/host/connect';
import { WorktreeManager, type RecoverReport } from '../core/isolation';
import { USER_ONLY_SETTING_KEYS } from '../core/projectSettings';
import type { AgentRuntime } from '../core/runtime/api';
import { openRuntime } from '../core/runtime/runtime';
import { userDataDir } from '../core/runtime/userDirs';
import { TranscriptStore } from '../core/runs/transcripts';
import type { HostSettings } from '../protocol/host';
import { askModeWidening } from './approvals';
import type { ChatRunContext, VsCodeEditorTools } from './editorTools';
import type { McpInputs } from './mcpInputs';
import { readSettings, userOnlySettings } from './settings';

/**
 * What a window runs its agents on. Normally the agent host: one process of
 * the user's that every window and terminal shares, so runs outlive a
 * reload, an update or a crash of this extension host; the window is one of
 * its clients. Where the host cannot be reached (or `subagents.host.enabled`
 * is off) the window runs them itself, and they end with it.
 */

/** The runtime the window talks to, and what it needs besides the runtime's own API. */
export interface RuntimeBackend {
  /** `host`: the agent host's; `window`: this extension host's own. */
  kind: 'host' | 'window';
  runtime: AgentRuntime;
  /** Isolated agents' worktrees, to review, apply and discard from this window. */
  worktrees: WorktreeManager;
  transcripts: TranscriptStore;
  /** The user's settings changed: history caps and retention, the host's timers. */
  applyUserSettings(settings: Settings): void;
  /** VS Code's tools changed: agents that name them get the new list. */
  editorToolsChanged(): void;
  /** Settles worktrees left by processes that died; what was kept goes to the view. */
  recoverWorktrees(): Promise<RecoverReport>;
  /** The pool of reusable worktrees changed (taken, handed back, the upkeep's work, here or in another process): the Worktrees row. */
  onPoolChange(listener: () => void): () => void;
  /** This window goes away: the host's runs go on; the window's own stop. */
  close(): Promise<void>;
}

export interface BackendParts {
  log: vscode.LogOutputChannel;
  extensionPath: string;
  editorTools: VsCodeEditorTools;
  mcpInputs: McpInputs;
  mcpStatusFile: string;
}

/** The window's settings, with the history's caps and retention from the user's settings alone (one history serves every window). */
export function windowSettings(): Settings {
  const userOnly = userOnlySettings().settings;
  return { ...readSettings().settings, ...Object.fromEntries(USER_ONLY_SETTING_KEYS.map((key) => [key, userOnly[key]])) };
}

export function hostSettingsOf(settings: Settings): HostSettings {
  return { idleExitSeconds: settings['host.idleExitSeconds'], unattendedApprovalSeconds: settings['host.unattendedApprovalSeconds'], user: settings as unknown as Record<string, unknown> };
}

function worktreesIn(dataDir: string, log: vscode.LogOutputChannel): WorktreeManager {
  return new WorktreeManager({
    stateDir: path.join(dataDir, 'worktrees', 'state'),
    worktreesRoot: path.join(dataDir, 'worktrees', 'trees'),
    // Read each time a worktree is done, so a change applies at once.
    ...worktreePoolOptions(() => windowSettings()),
    log: (level, message) => (level === 'debug' ? log.debug(message) : log[level](message)),
  });
}

/** The agent host's runtime, started first when none runs; rejects when it cannot be reached or started. */
export async function hostBackend(parts: BackendParts, onConnection: (state: 'connected' | 'lost' | 'closed', detail: string) => void): Promise<RuntimeBackend> {
  const { log, editorTools } = parts;
  const env = process.env;
  const dataDir = userDataDir(env);
  const script = path.join(parts.extensionPath, 'dist', 'host.js');
  let client: HostClient | null = null;
  const report = () => void client?.reportEditorTools(editorTools.all()).catch((error: unknown) => log.warn(`Could not tell the agent host VS Code's tools: ${String(error)}`));
  client = await HostClient.open({
    // VS Code's own runtime, as language servers are started: Electron's Node on the desktop, code-server's Node in a browser.
    connect: () => connectOrLaunch(env, { execPath: process.execPath, script, env, settings: hostSettingsOf(windowSettings()) }),
    identity: { kind: 'vscode', version: PRODUCT_VERSION, build: PRODUCT_BUILD, pid: process.pid, folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath) },
    handlers: {
      modeConsent: askModeWidening,
      mcpInputs: (server, ids) => parts.mcpInputs.ask(server, ids),
      editorTool: ({ tool, input, toolUseId, context }, signal) => editorTools.invokeById(tool, input, { signal, toolUseId, runContext: context as ChatRunContext | undefined }),
      prepareEditorTools: async (missing, timeoutMs) => {
        await editorTools.prepare(missing, timeoutMs);
        return editorTools.all();
      },
    },
    settings: () => hostSettingsOf(windowSettings()),
    reconnect: true,
    // The Runs view shows at once, however long the history; older runs' tool rows follow a moment later.
    summaries: true,
    coalesceMs: WINDOW_COALESCE_MS,
    log: (level, message) => log[level](message),
    onConnection: (state, detail) => {
      // A new host knows nothing of this window's tools yet.
      if (state === 'connected') report();
      onConnection(state, detail);
    },
  });
  report();
  const worktrees = worktreesIn(dataDir, log);
  const host = client;
  return {
    kind: 'host',
    runtime: host,
    worktrees,
    transcripts: new TranscriptStore(path.join(dataDir, 'transcripts')),
    applyUserSettings: (settings) => void host.applySettings(hostSettingsOf(settings)).catch((error: unknown) => log.warn(`Could not give the agent host the new settings: ${String(error)}`)),
    editorToolsChanged: report,
    recoverWorktrees: () => worktrees.recover(),
    // The host keeps the pool (cleans what this window hands back, refills at idle); the row follows its work through the pool's files.
    onPoolChange: (listener) => {
      const stops = [worktrees.onPoolChange(listener), worktrees.watchPool(listener)];
      return () => stops.forEach((stop) => stop());
    },
    close: async () => {
      host.close();
      worktrees.dispose();
    },
  };
}

/**
 * The runtime in this window's own process: what the window runs on when
 * the agent host cannot be reached or is turned off. Its runs end with the
 * window.
 */
export async function windowBackend(parts: BackendParts): Promise<RuntimeBackend> {
  const { log } = parts;
  // Caps and retention come from the user's settings alone (the history is shared); changes apply at once.
  for (const problem of userOnlySettings().problems) log.warn(problem);
  const runtime = await openRuntime({
    dataDir: userDataDir(process.env),
    settings: () => windowSettings(),
    coalesceMs: 100,
    mcpStatusFile: parts.mcpStatusFile,
    modeConsent: askModeWidening,
    editorTools: parts.editorTools,
    askMcpInputs: (server, ids) => parts.mcpInputs.ask(server, ids),
    // Recovery is the activation's, after the views exist (it reports what it kept).
    recoverWorktrees: false,
    // The window stays: it cleans, deletes and refills the worktree pool itself while none of its agents works.
    keepPoolsReady: true,
    log: (level, message, folder) => {
      const name = folder && vscode.workspace.getWorkspaceFolder(vscode.Uri.file(folder))?.name;
      log[level](name ? `[${name}] ${message}` : message);
    },
  });
  return {
    kind: 'window',
    runtime,
    worktrees: runtime.worktrees,
    transcripts: runtime.history.transcripts,
    applyUserSettings: (settings) => runtime.applySettings(settings),
    editorToolsChanged: () => undefined,
    recoverWorktrees: () => runtime.recoverWorktrees(),
    onPoolChange: (listener) => runtime.onPoolChange(listener),
    close: () => runtime.close({ reason: 'Stopped when its VS Code window closed or reloaded.' }),
  };
}
