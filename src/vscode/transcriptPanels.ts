import * as vscode from 'vscode';
import { transcriptHtml } from '../surfaces/transcript/transcriptHtml';
import { transcriptPageHtml } from '../surfaces/transcript/transcriptPage';
import type { Services } from './services';
import { transcriptTitle } from '../surfaces/transcript/transcriptTitle';

/**
 * Transcripts in a view of their own: a webview panel per agent (not a
 * preview editor, so opening another file never replaces it), rendered from
 * the transcript on disk plus the live state (the call the agent waits on),
 * re-rendered while the agent works, and restored after a reload. Its
 * title carries Open Source (the Markdown text) and nothing else: the page
 * loads no resource and runs only its own script (transcriptPage.ts).
 */

export const TRANSCRIPT_VIEW_TYPE = 'subagents.transcript';
const REFRESH_MS = 400;

interface Panel {
  panel: vscode.WebviewPanel;
  agentId: string;
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class TranscriptPanels implements vscode.WebviewPanelSerializer<{ agentId?: unknown }>, vscode.Disposable {
  readonly #panels = new Map<string, Panel>();
  readonly #unsubscribe: () => void;
  #active: string | undefined;

  constructor(
    private readonly services: Services,
    private readonly iconPath: vscode.Uri,
  ) {
    this.#unsubscribe = services.store.subscribe((changed) => {
      for (const open of this.#panels.values()) {
        const runId = services.agentNode(open.agentId)?.runId;
        if (runId && changed.has(runId)) this.#schedule(open);
      }
    });
  }

  /** The agent whose transcript view is the active editor, if any (for Open Source). */
  get activeAgent(): string | undefined {
    return this.#active;
  }

  /** Shows an agent's transcript, in the view already open for it if there is one. */
  show(agentId: string): void {
    const open = this.#panels.get(agentId);
    if (open) {
      open.panel.reveal();
      return;
    }
    const node = this.services.agentNode(agentId);
    const taken = new Set([...this.#panels.values()].map((p) => p.panel.title));
    const title = node ? transcriptTitle(node, taken) : `${agentId} · transcript`;
    const panel = vscode.window.createWebviewPanel(TRANSCRIPT_VIEW_TYPE, title, vscode.ViewColumn.Active, { enableScripts: true, enableFindWidget: true, localResourceRoots: [] });
    this.#attach(panel, agentId);
  }

  /** A transcript view VS Code restores after a reload. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: { agentId?: unknown } | undefined): Promise<void> {
    const agentId = typeof state?.agentId === 'string' ? state.agentId : undefined;
    if (!agentId || !this.services.agentNode(agentId) || this.#panels.has(agentId)) {
      panel.dispose();
      return;
    }
    this.#attach(panel, agentId);
  }

  #attach(panel: vscode.WebviewPanel, agentId: string): void {
    const node = this.services.agentNode(agentId);
    panel.iconPath = this.iconPath;
    panel.webview.options = { enableScripts: true, localResourceRoots: [] };
    panel.webview.html = transcriptPageHtml(`${node?.agentName ?? agentId} transcript`);
    const open: Panel = { panel, agentId, ready: false, timer: undefined };
    this.#panels.set(agentId, open);
    const track = () => {
      if (panel.active) this.#active = agentId;
      else if (this.#active === agentId) this.#active = undefined;
      void vscode.commands.executeCommand('setContext', 'subagents.transcriptActive', this.#active !== undefined);
    };
    track();
    panel.onDidChangeViewState(track);
    panel.webview.onDidReceiveMessage((message: unknown) => {
      // A (re)loaded page asks for its content: a hidden webview loses its document.
      if ((message as { type?: unknown } | null)?.type !== 'ready') return;
      open.ready = true;
      void this.#render(open, true);
    });
    panel.onDidDispose(() => {
      clearTimeout(open.timer);
      this.#panels.delete(agentId);
      if (this.#active === agentId) this.#active = undefined;
      void vscode.commands.executeCommand('setContext', 'subagents.transcriptActive', this.#active !== undefined);
    });
  }

  #schedule(open: Panel): void {
    if (open.timer || !open.ready) return;
    open.timer = setTimeout(() => {
      open.timer = undefined;
      void this.#render(open, false);
    }, REFRESH_MS);
  }

  async #render(open: Panel, first: boolean): Promise<void> {
    const node = this.services.agentNode(open.agentId);
    const html = node
      ? transcriptHtml(node, (await this.services.transcripts.read(open.agentId)) ?? [])
      : `<h1>Transcript not found</h1><p>This agent is not in the run history any more (it may have expired).</p>`;
    const active = node ? node.status === 'running' || node.status === 'waiting' || node.status === 'queued' : false;
    void open.panel.webview.postMessage({ type: 'content', agentId: open.agentId, html, follow: first && active });
  }

  dispose(): void {
    this.#unsubscribe();
    for (const open of [...this.#panels.values()]) open.panel.dispose();
  }
}
