import './style.css';
import { hostToWebviewSchema, type AgentsState, type RunView, type WebviewToHost } from '../../src/protocol/webview';
import { renderAgents, renderNotices } from './agentsList';
import { el } from './dom';
import { formatDuration } from './format';
import { renderRun, type RunRenderContext } from './runsTree';
import { ensureTabStops, installTreeKeyboard, setExpanded } from './tree';

/**
 * The Agents view's script: validates what the host sends (S7.4), keeps the
 * latest agents state and runs, and renders them. Runs are re-rendered one
 * at a time, only those the host says changed, so focus and hover survive
 * live updates; elapsed times tick locally between updates.
 */

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;
/** Runs whose root starts expanded; older ones stay folded until opened. */
const OPEN_RUNS = 3;

function post(message: WebviewToHost): void {
  vscode.postMessage(message);
}

const saved = vscode.getState() as { expanded?: Record<string, boolean>; folded?: Record<string, boolean> } | undefined;
const expandedOverrides: Record<string, boolean> = { ...(saved?.expanded ?? {}) };
const foldedGroups: Record<string, boolean> = { ...(saved?.folded ?? {}) };
const saveState = () => vscode.setState({ expanded: expandedOverrides, folded: foldedGroups });
const folding = {
  isFolded: (key: string) => foldedGroups[key] ?? false,
  setFolded: (key: string, folded: boolean) => {
    foldedGroups[key] = folded;
    saveState();
  },
};
let clockOffset = 0;
const runs = new Map<string, RunView>();
let order: string[] = [];
const runElements = new Map<string, HTMLElement>();

const noticesSlot = el('div', { className: 'notices-slot' });
const agentsSlot = el('div', { className: 'agents-slot' });
const runsList = el('div', { className: 'runs-list', testId: 'runs-list' });
const runsEmpty = el('p', { className: 'empty', text: 'No runs yet. Run an agent with the ▷ button next to it, or with "Subagents: Run Agent…".', testId: 'runs-empty' });
const runsSection = el('section', { testId: 'runs-section' }, [el('h2', { text: 'Runs' }), runsEmpty, runsList]);
root.append(noticesSlot, agentsSlot, runsSection);

const ctx: RunRenderContext = {
  post,
  expanded: (key, byDefault) => expandedOverrides[key] ?? byDefault,
  clockOffset: () => clockOffset,
};

function rememberExpanded(item: HTMLElement, expanded: boolean): void {
  const key = item.dataset.key;
  if (key) {
    expandedOverrides[key] = expanded;
    saveState();
  }
  const twistie = item.querySelector(':scope > .row .twistie');
  twistie?.classList.toggle('codicon-chevron-down', expanded);
  twistie?.classList.toggle('codicon-chevron-right', !expanded);
}

installTreeKeyboard(root, rememberExpanded);

// A click on a twistie toggles its item (keyboard: Left/Right, see tree.ts).
root.addEventListener('click', (e) => {
  const twistie = e.target instanceof Element ? e.target.closest('.twistie') : null;
  const item = twistie?.closest<HTMLElement>('li[role="treeitem"]');
  if (item) setExpanded(item, item.getAttribute('aria-expanded') !== 'true', rememberExpanded);
});

/** Runs `update` (which replaces DOM under `scope`), keeping keyboard focus on the same item. */
function keepingFocus(scope: Element, update: () => void): void {
  const active = document.activeElement;
  const focusedKey = active && scope.contains(active) ? active.closest<HTMLElement>('[data-key]')?.dataset.key : undefined;
  update();
  if (!focusedKey) return;
  const again = root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focusedKey)}"]`);
  if (again) {
    again.tabIndex = 0;
    again.focus();
  }
}

function renderAgentsPart(state: AgentsState): void {
  runsEmpty.textContent = state.canRun
    ? 'No runs yet. Run an agent with the ▷ button next to it, or with "Subagents: Run Agent…".'
    : 'No runs. Agents can run once this workspace is trusted.';
  keepingFocus(noticesSlot, () => noticesSlot.replaceChildren(...[renderNotices(state.notices, post)].filter((n): n is HTMLElement => n !== null)));
  keepingFocus(agentsSlot, () => agentsSlot.replaceChildren(renderAgents(state, post, folding)));
}

function renderRuns(changed: RunView[]): void {
  const open = new Set(order.slice(0, OPEN_RUNS));
  for (const run of changed) {
    const next = renderRun({ ...run, defaultOpen: open.has(run.runId) }, ctx);
    const old = runElements.get(run.runId);
    if (old) keepingFocus(old, () => old.replaceWith(next));
    else runsList.append(next);
    runElements.set(run.runId, next);
  }
  const keep = new Set(order);
  for (const [id, element] of runElements) {
    if (keep.has(id)) continue;
    element.remove();
    runElements.delete(id);
  }
  // Newest first; appendChild moves an element, so only misplaced ones move.
  let previous: Element | null = null;
  for (const id of order) {
    const element = runElements.get(id);
    if (!element) continue;
    const expected: Element | null = previous ? previous.nextElementSibling : runsList.firstElementChild;
    if (expected !== element) runsList.insertBefore(element, expected);
    previous = element;
  }
  runsEmpty.hidden = order.length > 0;
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  // S7.4: anything that does not match the protocol is dropped, not rendered.
  const parsed = hostToWebviewSchema.safeParse(event.data);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'agents') renderAgentsPart(message.state); else {
    clockOffset = message.now - Date.now();
    for (const run of message.changed) runs.set(run.runId, run);
    order = message.order.filter((id) => runs.has(id));
    for (const id of [...runs.keys()]) if (!message.order.includes(id)) runs.delete(id);
    renderRuns(message.changed);
  }
  ensureTabStops(root);
});

// Elapsed times of running agents tick here; the host sends only real changes.
setInterval(() => {
  const now = Date.now() + clockOffset;
  for (const span of root.querySelectorAll<HTMLElement>('.elapsed[data-since]')) span.textContent = formatDuration(now - Number(span.dataset.since));
}, 1000);

post({ type: 'ready' });
