// The Runs view mounted in a simulated DOM (happy-dom): the real view code
// (webview-ui/src/runsView.ts) and its real stylesheet, in a window of a
// given width, with a webview API of the test's own that records what the
// page posts. Messages go in as VS Code delivers them (window `message`
// events), so the protocol's checks run too. happy-dom computes styles
// (cascade, media queries on the window's width) but lays nothing out: a
// test reads computed styles and the DOM, not pixel boxes; pixels are the
// e2e screenshots' part.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Window } from 'happy-dom';
import { diffAgent } from '../../../src/protocol/agentPatch';
import type { AgentView, HostToWebview, RunHeader, WebviewToHost } from '../../../src/protocol/webview';

const root = path.resolve(import.meta.dirname, '../../..');
const STYLE = readFileSync(path.join(root, 'webview-ui/src/style.css'), 'utf8');

/** What the view reads from the window as globals, installed from the simulated one. */
const GLOBALS = [
  'document',
  'window',
  'Node',
  'Element',
  'HTMLElement',
  'HTMLButtonElement',
  'HTMLLIElement',
  'HTMLUListElement',
  'CustomEvent',
  'MouseEvent',
  'KeyboardEvent',
  'MessageEvent',
  'Event',
  'CSS',
  'getComputedStyle',
  'requestAnimationFrame',
  'cancelAnimationFrame',
] as const;

export interface MountedView {
  window: Window;
  document: Window['document'];
  root: HTMLElement;
  /** Everything the page posted to the host, in order. */
  posted: WebviewToHost[];
  /** Delivers a message as VS Code does and waits until it is on screen. */
  send(message: HostToWebview | Record<string, unknown>): Promise<void>;
  /** The element of a data-testid. */
  byTestId(id: string): HTMLElement | null;
  /** Presses a key on the focused element (as the browser dispatches it: keydown, bubbling). */
  press(key: string, init?: { shiftKey?: boolean }): void;
  style(element: Element): CSSStyleDeclaration;
  close(): Promise<void>;
}

/** Mounts the view in a fresh window `width` pixels wide (a webview's window is as wide as its view). */
export async function mountView(width: number, opts: { theme?: 'light' | 'dark' } = {}): Promise<MountedView> {
  const win = new Window({ width, height: 800, url: 'https://webview.test/' });
  const doc = win.document;
  doc.body.className = opts.theme === 'dark' ? 'vscode-dark' : 'vscode-light';
  const style = doc.createElement('style');
  style.textContent = STYLE;
  doc.head.append(style);
  const rootEl = doc.createElement('div');
  rootEl.id = 'root';
  doc.body.append(rootEl);
  const g = globalThis as Record<string, unknown>;
  for (const name of GLOBALS) g[name] = name === 'window' ? win : (win as unknown as Record<string, unknown>)[name];
  g.requestAnimationFrame = win.requestAnimationFrame.bind(win);
  g.getComputedStyle = win.getComputedStyle.bind(win);

  const posted: WebviewToHost[] = [];
  let state: unknown;
  const { mountRunsView } = await import('../../../webview-ui/src/runsView');
  const view = mountRunsView(rootEl as unknown as HTMLElement, {
    postMessage: (m) => posted.push(m as WebviewToHost),
    getState: () => state,
    setState: (s) => (state = s),
  });
  return {
    window: win,
    document: doc,
    root: rootEl as unknown as HTMLElement,
    posted,
    async send(message) {
      win.dispatchEvent(new win.MessageEvent('message', { data: message }));
      await view.idle();
    },
    byTestId: (id) => doc.querySelector(`[data-testid="${id}"]`) as unknown as HTMLElement | null,
    press(key, init = {}) {
      const target = doc.activeElement ?? doc.body;
      target.dispatchEvent(new win.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }));
    },
    style: (element) => win.getComputedStyle(element as never) as unknown as CSSStyleDeclaration,
    async close() {
      view.dispose();
      await win.happyDOM.close();
    },
  };
}

/** An agent's view with everything a row can show, `over` on top. */
export function agentView(over: Partial<AgentView> & Pick<AgentView, 'id' | 'name'>): AgentView {
  return {
    parentId: null,
    description: '',
    status: 'running',
    model: 'claude-sonnet-4-5',
    background: false,
    startedAt: 1_000,
    endedAt: null,
    error: null,
    filePath: null,
    color: null,
    worktree: null,
    approval: null,
    result: null,
    messages: [],
    tokens: 0,
    costUsd: 0,
    activity: '',
    tools: [],
    hiddenTools: 0,
    children: [],
    ...over,
  };
}

/** A run of `agents` (the first is its root) as one `runs` message, whole, as the host sends it the first time. */
export function runsMessage(runs: Array<{ runId: string; agents: AgentView[]; header?: Partial<RunHeader> }>, opts: { reset?: boolean } = {}): HostToWebview {
  return {
    type: 'runs',
    reset: opts.reset ?? true,
    updates: runs.map(({ runId, agents, header }) => ({
      run: {
        runId,
        rootAgentId: agents[0]!.id,
        status: agents[0]!.status,
        startedAt: agents[0]!.startedAt,
        endedAt: agents[0]!.endedAt,
        folder: null,
        agentCount: agents.length,
        tokens: agents.reduce((n, a) => n + a.tokens, 0),
        costUsd: agents.reduce((n, a) => n + a.costUsd, 0),
        ...header,
      },
      agents: agents.map((a) => diffAgent(a, undefined).patch!),
    })),
    order: runs.map((r) => r.runId),
    cleared: 0,
    now: 10_000,
  };
}
