import { isActiveStatus } from '../../src/protocol/vocabulary';
import { hostToWebviewSchema, type AgentView, type StatusState, type WebviewToHost } from '../../src/protocol/webview';
import { el, textButton } from './dom';
import { formatDuration } from './format';
import { MessageBoxes } from './messages';
import { renderNotices } from './notices';
import { RunsTree, setExpandedView } from './runsTree';
import { focusItem, installTreeKeyboard, installViewFocus, setExpanded } from './tree';

/**
 * The Runs view: validates what the host sends, renders the notices and the
 * run trees (runsTree.ts patches them incrementally), answers reveal
 * requests, and reports clicks. A click on an agent or tool row opens that
 * agent's transcript; the twistie folds; the buttons act. Elapsed times tick
 * locally between updates.
 *
 * Mounted by main.ts with VS Code's webview API; the webview tests mount it
 * in a simulated DOM with an API of their own, and talk to it through the
 * same messages.
 */

/** What the view needs of VS Code's webview API (`acquireVsCodeApi()`). */
export interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export interface MountedRunsView {
  /** Resolves when every message so far is on screen. */
  idle(): Promise<void>;
  /** Stops the clock and the listeners. */
  dispose(): void;
}

export function mountRunsView(root: HTMLElement, vscode: WebviewApi): MountedRunsView {
  function post(message: WebviewToHost): void {
    vscode.postMessage(message);
  }

  const saved = vscode.getState() as { expanded?: Record<string, boolean> } | undefined;
  const expandedOverrides: Record<string, boolean> = { ...(saved?.expanded ?? {}) };
  const saveState = () => vscode.setState({ expanded: expandedOverrides });
  let clockOffset = 0;
  let canRun = true;
  let demo = false;
  let received = false;

  const noticesSlot = el('div', { className: 'notices-slot' });
  // The runs are one tree: arrows move across them, Tab leaves it (tree.ts).
  const runsList = el('div', { className: 'runs-list', testId: 'runs-list', role: 'tree' });
  runsList.setAttribute('aria-label', 'Runs');
  const emptyText = el('span');
  const runButton = textButton('Run Agent…', 'runs-empty-run', () => post({ type: 'command', command: 'runAgent' }), 'text-button primary');
  const demoButton = textButton('Run the Demo', 'runs-empty-demo', () => post({ type: 'command', command: 'runDemo' }), 'text-button');
  const runsEmpty = el('div', { className: 'empty', testId: 'runs-empty' }, [el('p', {}, [emptyText]), runButton, demoButton]);
  const clearedNote = el('div', { className: 'cleared', testId: 'runs-cleared' });
  const runsSection = el('section', { testId: 'runs-section', className: 'runs' }, [runsEmpty, runsList, clearedNote]);
  runsSection.setAttribute('aria-label', 'Runs');
  root.append(noticesSlot, runsSection);
  runsEmpty.hidden = true;
  clearedNote.hidden = true;

  function remember(key: string, expanded: boolean): void {
    expandedOverrides[key] = expanded;
    saveState();
  }

  const boxes = new MessageBoxes(post);
  const tree = new RunsTree(runsList, {
    post,
    clockOffset: () => clockOffset,
    expanded: (key, byDefault) => expandedOverrides[key] ?? byDefault,
    remember,
    message: (agent) => boxes.toggle(agent, tree.agent(agent.id)?.item ?? null),
    rendered: (item, view) => boxes.place(item, view),
    // The team panel's ✉: the teammate's box opens under its row, brought into view.
    messageTo: (agentId) => {
      tree.flushNow();
      const item = tree.expandTo(agentId);
      const found = tree.agent(agentId);
      if (!found) return;
      if (!boxes.isOpen(agentId)) boxes.toggle(found.view, item ?? found.item);
      (item ?? found.item).scrollIntoView({ block: 'nearest' });
    },
  });

  function rememberExpanded(item: HTMLElement, expanded: boolean): void {
    const key = item.dataset.key;
    if (key) remember(key, expanded);
    setExpandedView(item, expanded);
    tree.toggled(item, expanded);
  }

  installTreeKeyboard(root, rememberExpanded);
  const stopViewFocus = installViewFocus(runsList);

  // M on an agent at work opens (or closes) its message box.
  root.addEventListener('keydown', (e) => {
    if (e.key.toLowerCase() !== 'm' || e.ctrlKey || e.metaKey || e.altKey) return;
    const item = itemOf(e.target);
    const agentId = item && e.target === item ? item.dataset.agentId : undefined;
    const found = agentId ? tree.agent(agentId) : undefined;
    if (!found || !(isActiveStatus(found.view.status) || boxes.isOpen(found.view.id))) return;
    e.preventDefault();
    boxes.toggle(found.view, found.item);
  });

  function itemOf(target: EventTarget | null): HTMLElement | null {
    return target instanceof Element ? target.closest<HTMLElement>('li[role="treeitem"]') : null;
  }

  /** The agent whose transcript an item stands for: itself, or the agent that made the tool call. */
  function agentOfItem(item: HTMLElement): string | undefined {
    return item.dataset.agentId ?? item.dataset.ownerId;
  }

  root.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null;
    if (!target || target.closest('button')) return;
    const item = itemOf(target);
    if (!item) return;
    if (target.closest('.twistie')) {
      setExpanded(item, item.getAttribute('aria-expanded') !== 'true', rememberExpanded);
      return;
    }
    // Like a file in the Explorer: one click on a row opens what it stands for.
    if (target.closest('.row')) {
      const agentId = agentOfItem(item);
      if (agentId) post({ type: 'agentAction', action: 'transcript', agentId });
    }
  });

  root.addEventListener('activate', (e) => {
    const item = itemOf(e.target);
    const agentId = item && agentOfItem(item);
    if (agentId) post({ type: 'agentAction', action: 'transcript', agentId });
  });

  // Delete on an agent that is at work stops it (and its sub-agents), as its stop button does.
  root.addEventListener('stop', (e) => {
    const item = itemOf(e.target);
    const agentId = item?.dataset.agentId;
    const status = item?.dataset.status;
    if (agentId && status && isActiveStatus(status as AgentView['status'])) post({ type: 'agentAction', action: 'stop', agentId });
  });

  function renderStatus(state: StatusState): void {
    canRun = state.canRun;
    demo = state.demo;
    const notices = renderNotices(state.notices, post);
    noticesSlot.replaceChildren(...(notices ? [notices] : []));
    renderEmpty();
  }

  function renderEmpty(): void {
    const none = tree.order.length === 0;
    runsEmpty.hidden = !received || !none;
    emptyText.textContent = canRun
      ? 'No runs yet. Run an agent with ▷ in the Agents view, or here:'
      : 'No runs. Agents can run once this workspace is trusted.';
    runButton.hidden = !canRun;
    demoButton.hidden = !canRun || !demo;
  }

  function renderCleared(cleared: number): void {
    clearedNote.hidden = cleared === 0;
    if (cleared === 0) return;
    clearedNote.replaceChildren(
      el('span', { text: `${cleared} finished run${cleared === 1 ? '' : 's'} cleared from view. ` }),
      textButton('Show them', 'runs-show-cleared', () => post({ type: 'command', command: 'showCleared' }), 'link-button'),
    );
  }

  /** Expands the ancestors of `item`, selects it and scrolls it into view. */
  function reveal(item: HTMLElement): void {
    for (let up = item.parentElement?.closest<HTMLElement>('li[role="treeitem"]'); up; up = up.parentElement?.closest<HTMLElement>('li[role="treeitem"]')) {
      if (up.getAttribute('aria-expanded') === 'false') rememberExpanded(up, true);
    }
    for (const old of root.querySelectorAll('.selected')) old.classList.remove('selected');
    item.classList.add('selected');
    const treeEl = item.closest('[role="tree"]');
    if (treeEl) focusItem(treeEl, item);
    item.scrollIntoView({ block: 'nearest' });
  }

  const onMessage = (event: MessageEvent<unknown>) => {
    // Anything that does not match the protocol is dropped, not rendered.
    const parsed = hostToWebviewSchema.safeParse(event.data);
    if (!parsed.success) return;
    const message = parsed.data;
    switch (message.type) {
      case 'status':
        renderStatus(message.state);
        break;
      case 'runs':
        received = true;
        clockOffset = message.now - Date.now();
        tree.apply(message);
        renderEmpty();
        renderCleared(message.cleared);
        break;
      case 'reveal': {
        if (message.showResult && message.agentId) {
          remember(`result:${message.agentId}`, true);
          tree.redraw(message.agentId);
        }
        tree.flushNow();
        const item = message.agentId ? tree.expandTo(message.agentId) : undefined;
        const target = item ?? tree.runElement(message.runId)?.querySelector<HTMLElement>(':scope > li[role="treeitem"]');
        if (target) reveal(target);
        post({ type: 'revealed', requestId: message.requestId, found: Boolean(target && (!message.agentId || item)) });
        break;
      }
    }
  };
  window.addEventListener('message', onMessage);

  // Elapsed times of running agents tick here; the host sends only real changes.
  const clock = setInterval(() => {
    const now = Date.now() + clockOffset;
    for (const span of root.querySelectorAll<HTMLElement>('.elapsed[data-since]')) span.textContent = formatDuration(now - Number(span.dataset.since));
  }, 1000);

  post({ type: 'ready' });
  return {
    idle: () => tree.whenIdle(),
    dispose: () => {
      clearInterval(clock);
      stopViewFocus();
      window.removeEventListener('message', onMessage);
    },
  };
}
