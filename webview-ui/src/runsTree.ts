import { isActiveStatus } from '../../src/protocol/vocabulary';
import { mergeAgent, type HeldAgent } from '../../src/protocol/agentPatch';
import { type AgentView, type HostToWebview, type RunHeader, type ToolView } from '../../src/protocol/webview';
import { agentRow, patchAgentRow, rowSignature, toolLabel, toolRow, type RowContext } from './agentRow';
import { approvalLabel } from './approvalBox';
import { el } from './dom';
import { statusDisplay } from '../../src/protocol/statusDisplay';
import { agentMenuContext, toolMenuContext } from './rowContext';
import { teamPanel } from './teamPanel';
import { resetTabStop } from './tree';

/**
 * The runs as live trees: agent → its tool rows and, in the place of each
 * spawn call, the agent it started (one row, not a Task row with the agent
 * under it; a spawn that started nobody stays a Task row with its error);
 * children without a row (resumed, or their row folded away) follow.
 *
 * Built for trees of hundreds of agents that change many times a second:
 * every agent and tool row keeps its element, a message only queues the
 * agents it names, and the queue is worked off in animation frames within a
 * time budget, so a large update spreads over frames instead of stalling
 * one. A row is rebuilt only when what it shows changed (the live text and
 * token count are patched in place), and elements keep their identity, so
 * focus, hover and expansion survive updates.
 */

export type RunsMessage = Extract<HostToWebview, { type: 'runs' }>;

export interface TreeContext extends RowContext {
  /** Called after an agent's item is rendered (what lives beside its row, such as an open message box, stays with it). */
  rendered?(item: HTMLLIElement, view: AgentView): void;
  /** Opens the message box of an agent the team panel names (expanding the tree to its row). */
  messageTo?(agentId: string): void;
}

interface ToolRecord {
  li: HTMLLIElement;
  sig: string;
}

interface AgentRecord {
  id: string;
  li: HTMLLIElement;
  view: AgentView | null;
  held: HeldAgent | undefined;
  row: HTMLElement | null;
  rowSig: string;
  group: HTMLUListElement | null;
  folded: HTMLLIElement | null;
  tools: Map<string, ToolRecord>;
  /** Folded with updates not rendered yet: what is under it is built when it opens. */
  stale: boolean;
  /** Updated while out of the document (under a folded agent): rendered when placed again. */
  pending: boolean;
}

interface RunRecord {
  header: RunHeader;
  tree: HTMLUListElement;
  agents: Map<string, AgentRecord>;
  /** The root starts expanded (active runs and the newest few). */
  defaultOpen: boolean;
  /** Agents that are active or have an active agent below them; null when views changed since. */
  busy: Set<string> | null;
  /** What the team panel last showed (its view, and whether it started open), to rebuild it only when that changed. */
  teamSig: string;
}

/** Runs whose root starts expanded besides the active ones; older ones stay folded until opened. */
const OPEN_RUNS = 3;
/** From this many agents on, a run's nested agents start folded. */
const LARGE_TREE = 12;
/** Work per animation frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 4;

export class RunsTree {
  readonly #runs = new Map<string, RunRecord>();
  /** Agents waiting to be rendered, per run. */
  readonly #queue = new Map<string, Set<string>>();
  #order: string[] = [];
  #orderDirty = false;
  #frame = 0;
  readonly #idle: Array<() => void> = [];

  constructor(
    private readonly list: HTMLElement,
    private readonly ctx: TreeContext,
  ) {}

  get order(): readonly string[] {
    return this.#order;
  }

  apply(message: RunsMessage): void {
    if (message.reset) {
      for (const run of this.#runs.values()) run.tree.remove();
      this.#runs.clear();
      this.#queue.clear();
    }
    const keep = new Set(message.order);
    for (const [id, run] of this.#runs) {
      if (keep.has(id)) continue;
      run.tree.remove();
      this.#runs.delete(id);
      this.#queue.delete(id);
    }
    for (const { run: header, agents } of message.updates) {
      let run = this.#runs.get(header.runId);
      if (!run) {
        // One keyboard tree over every run (the list is the tree): a run's list only groups its items.
        const tree = el('ul', { role: 'none', className: 'tree run', testId: `run-${header.runId}`, key: `run:${header.runId}` });
        run = { header, tree, agents: new Map(), defaultOpen: false, busy: null, teamSig: '' };
        this.#runs.set(header.runId, run);
      }
      run.header = header;
      run.busy = null;
      run.tree.dataset.status = header.status;
      let queued = this.#queue.get(header.runId);
      if (!queued) this.#queue.set(header.runId, (queued = new Set()));
      for (const patch of agents) {
        const rec = this.#agent(run, patch.id);
        const merged = mergeAgent(rec.held, patch);
        if (!merged) continue;
        rec.held = merged.held;
        rec.view = merged.held.view;
        queued.add(patch.id);
      }
      // The root row shows the run's folder and the run's status decides its default expansion.
      queued.add(header.rootAgentId);
    }
    this.#order = message.order.filter((id) => this.#runs.has(id));
    this.#orderDirty = true;
    this.#schedule();
  }

  /** Resolves once everything received so far is rendered. */
  whenIdle(): Promise<void> {
    if (!this.#frame && !this.#orderDirty && this.#queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Renders whatever is queued now, without waiting for a frame (before revealing a node). */
  flushNow(): void {
    this.#work(Infinity);
  }

  /** Draws an agent's row again (a choice about its parts changed, such as its Result line). */
  redraw(agentId: string): void {
    for (const run of this.#runs.values()) {
      const rec = run.agents.get(agentId);
      if (!rec) continue;
      rec.rowSig = '';
      let queued = this.#queue.get(run.header.runId);
      if (!queued) this.#queue.set(run.header.runId, (queued = new Set()));
      queued.add(agentId);
      return;
    }
  }

  runElement(runId: string): HTMLElement | undefined {
    return this.#runs.get(runId)?.tree;
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#work(FRAME_BUDGET_MS);
      if (this.#queue.size > 0 || this.#orderDirty) this.#schedule();
      else for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  #work(budgetMs: number): void {
    const deadline = performance.now() + budgetMs;
    // Each run's own row first, in the order they came (newest first): a screenful of runs shows before the agents
    // inside them, and a long history's first screen does not wait for every tool row of the runs at its top.
    for (const [runId, ids] of this.#queue) {
      const run = this.#runs.get(runId);
      const root = run?.header.rootAgentId;
      if (!run || !root || !ids.has(root)) continue;
      const rec = run.agents.get(root);
      if (!rec?.view) continue;
      ids.delete(root);
      this.#render(run, rec, rec.view);
      if (performance.now() > deadline) break;
    }
    for (const [runId, ids] of this.#queue) {
      const run = this.#runs.get(runId);
      if (!run) {
        this.#queue.delete(runId);
        continue;
      }
      for (const id of ids) {
        ids.delete(id);
        const rec = run.agents.get(id);
        // An agent under a folded one is out of the document: it is drawn once it is placed again.
        if (rec?.view && rec.row && !rec.li.isConnected) rec.pending = true;
        else if (rec?.view) this.#render(run, rec, rec.view);
        if (performance.now() > deadline) break;
      }
      if (ids.size === 0) {
        this.#queue.delete(runId);
        this.#applyDefaults(run);
      }
      if (performance.now() > deadline) break;
    }
    if (this.#orderDirty) {
      this.#placeRuns();
      this.#orderDirty = false;
    }
  }

  #agent(run: RunRecord, id: string): AgentRecord {
    let rec = run.agents.get(id);
    if (!rec) {
      const li = el('li', { className: 'run-agent status-queued', testId: `run-agent-${id}`, key: `agent:${id}`, role: 'treeitem' });
      li.dataset.status = 'queued';
      li.tabIndex = -1;
      li.dataset.agentId = id;
      rec = { id, li, view: null, held: undefined, row: null, rowSig: '', group: null, folded: null, tools: new Map(), stale: false, pending: false };
      run.agents.set(id, rec);
    }
    return rec;
  }

  /**
   * Whether an agent's own content starts expanded: the root of an open run
   * (active, or among the newest); below it, every agent of a small tree. In
   * a large tree the nested agents show as rows (status, activity, usage) and
   * the user opens the ones to look into.
   */
  #openByDefault(run: RunRecord, rec: AgentRecord, busy: ReadonlySet<string>): boolean {
    if (rec.id === run.header.rootAgentId) return run.defaultOpen || busy.has(rec.id);
    return run.agents.size <= LARGE_TREE;
  }

  /** Agents that are active or have an active agent below them. */
  #busy(run: RunRecord): Set<string> {
    if (run.busy) return run.busy;
    const busy = (run.busy = new Set<string>());
    for (const rec of run.agents.values()) {
      if (!rec.view || !isActiveStatus(rec.view.status)) continue;
      for (let id: string | null = rec.id; id && !busy.has(id); id = run.agents.get(id)?.view?.parentId ?? null) busy.add(id);
    }
    return busy;
  }

  #render(run: RunRecord, rec: AgentRecord, view: AgentView): void {
    const isRoot = view.id === run.header.rootAgentId;
    const hasContent = view.tools.length > 0 || view.children.length > 0 || view.hiddenTools > 0;
    const open = hasContent ? this.ctx.expanded(`agent:${view.id}`, this.#openByDefault(run, rec, this.#busy(run))) : null;
    const header = isRoot ? run.header : null;
    const sig = rowSignature(view, header) + String(open);
    if (sig !== rec.rowSig || !rec.row) {
      const row = agentRow(view, open, header, this.ctx);
      if (rec.row) replaceKeepingFocus(rec.row, row);
      else rec.li.prepend(row);
      rec.row = row;
      rec.rowSig = sig;
      setAttr(rec.li, 'data-vscode-context', agentMenuContext(view));
    }
    patchAgentRow(rec.row, view, header);
    this.ctx.rendered?.(rec.li, view);
    if (isRoot) this.#renderTeam(run, rec);
    // Attributes are written only when they change: a write restyles the whole subtree.
    if (rec.li.dataset.status !== view.status) {
      rec.li.classList.remove(`status-${rec.li.dataset.status}`);
      rec.li.classList.add(`status-${view.status}`);
      rec.li.dataset.status = view.status;
    }
    if (isRoot !== rec.li.classList.contains('root')) rec.li.classList.toggle('root', isRoot);
    setAttr(rec.li, 'data-agent-name', view.name);
    const waitingFor = view.status === 'waiting' && view.approval ? `waiting for your approval: ${approvalLabel(view.approval)}` : null;
    setAttr(rec.li, 'aria-label', waitingFor ? `${view.name}, ${waitingFor}` : `${view.name}, ${statusDisplay(view.status).label}: ${view.description}`);
    setAttr(rec.li, 'aria-expanded', open === null ? null : String(open));
    // Like VS Code's own trees, a folded node's children are built when it opens.
    if (open === false) rec.stale = true;
    else {
      rec.stale = false;
      this.#renderChildren(run, rec, view, hasContent);
    }
    if (isRoot && rec.li.parentElement !== run.tree) {
      run.tree.replaceChildren(rec.li);
      // One tab stop for the whole tree (roving tabindex, tree.ts): the first root's, until focus moves within.
      if (!this.list.querySelector('li[tabindex="0"]')) rec.li.tabIndex = 0;
    }
  }

  /** A team run's roster, tasks and messages, between the root's row and its tree. */
  #renderTeam(run: RunRecord, rec: AgentRecord): void {
    const team = run.header.team ?? null;
    const existing = rec.li.querySelector<HTMLElement>(':scope > .team-panel');
    if (!team) {
      existing?.remove();
      run.teamSig = '';
      return;
    }
    const defaultOpen = isActiveStatus(run.header.status) || run.defaultOpen;
    const sig = JSON.stringify([team, defaultOpen, this.ctx.expanded(`team:${run.header.runId}`, defaultOpen)]);
    if (existing && sig === run.teamSig) return;
    run.teamSig = sig;
    const messageTo = this.ctx.messageTo ?? (() => undefined);
    const panel = teamPanel(run.header.runId, team, defaultOpen, { ...this.ctx, messageTo });
    if (existing) replaceKeepingFocus(existing, panel);
    else if (rec.group) rec.li.insertBefore(panel, rec.group);
    else rec.li.append(panel);
  }

  #renderChildren(run: RunRecord, rec: AgentRecord, view: AgentView, hasContent: boolean): void {
    if (!hasContent) {
      rec.group?.remove();
      rec.group = null;
      return;
    }
    if (!rec.group) {
      rec.group = el('ul', { role: 'group' });
      rec.li.append(rec.group);
    }
    const wanted: HTMLElement[] = [];
    if (view.hiddenTools > 0) {
      rec.folded ??= el('li', { className: 'folded' });
      const text = `${view.hiddenTools} earlier tool call${view.hiddenTools === 1 ? '' : 's'} (see the transcript)`;
      if (rec.folded.textContent !== text) rec.folded.textContent = text;
      wanted.push(rec.folded);
    }
    const underRows = new Set<string>();
    const liveTools = new Set<string>();
    for (const tool of view.tools) {
      const child = tool.childAgentId && run.agents.has(tool.childAgentId) ? tool.childAgentId : null;
      if (child) {
        // The agent a spawn started stands in the place of its Task row.
        underRows.add(child);
        wanted.push(this.#agent(run, child).li);
        continue;
      }
      liveTools.add(tool.toolUseId);
      wanted.push(this.#tool(rec, tool));
    }
    for (const id of rec.tools.keys()) if (!liveTools.has(id)) rec.tools.delete(id);
    for (const childId of view.children) {
      if (underRows.has(childId) || !run.agents.has(childId)) continue;
      wanted.push(this.#agent(run, childId).li);
    }
    reconcile(rec.group, wanted);
    for (const id of view.children) this.#drawPending(run, id);
  }

  #drawPending(run: RunRecord, agentId: string): void {
    const rec = run.agents.get(agentId);
    if (!rec?.pending || !rec.view || !rec.li.isConnected) return;
    rec.pending = false;
    this.#render(run, rec, rec.view);
  }

  #tool(owner: AgentRecord, tool: ToolView): HTMLLIElement {
    const sig = `${tool.status}|${tool.name}|${tool.inputSummary}|${tool.resultSummary}|${tool.durationMs}`;
    let rec = owner.tools.get(tool.toolUseId);
    if (!rec || rec.sig !== sig) {
      const li = el('li', { className: `tool tool-${tool.status}`, testId: `tool-${tool.toolUseId}`, key: `tool:${tool.toolUseId}`, role: 'treeitem' }, [toolRow(tool, null)]);
      li.tabIndex = -1;
      li.dataset.status = tool.status;
      li.dataset.ownerId = owner.id;
      li.dataset.vscodeContext = toolMenuContext(owner.id);
      li.setAttribute('aria-label', toolLabel(tool));
      if (rec) replaceKeepingFocus(rec.li, li);
      rec = { li, sig };
      owner.tools.set(tool.toolUseId, rec);
    }
    return rec.li;
  }

  /** After a run's batch: agents whose default expansion changed (work ended below them) follow it, unless the user chose. */
  #applyDefaults(run: RunRecord): void {
    const busy = this.#busy(run);
    for (const rec of run.agents.values()) {
      if (!rec.view || !rec.li.hasAttribute('aria-expanded')) continue;
      const open = this.ctx.expanded(`agent:${rec.id}`, this.#openByDefault(run, rec, busy));
      if (rec.li.getAttribute('aria-expanded') !== String(open)) this.#setOpen(run, rec, open);
    }
  }

  #setOpen(run: RunRecord, rec: AgentRecord, open: boolean): void {
    setExpandedView(rec.li, open);
    if (open && rec.stale && rec.view) this.#render(run, rec, rec.view);
  }

  /** The agent's item and the view it shows, when it is in the view. */
  agent(agentId: string): { item: HTMLLIElement; view: AgentView } | undefined {
    for (const run of this.#runs.values()) {
      const rec = run.agents.get(agentId);
      if (rec?.view) return { item: rec.li, view: rec.view };
    }
    return undefined;
  }

  /** The user opened or folded an item: an agent opened now gets what it was not shown while folded. */
  toggled(item: HTMLElement, open: boolean): void {
    const agentId = item.dataset.agentId;
    if (!agentId) return;
    for (const run of this.#runs.values()) {
      const rec = run.agents.get(agentId);
      if (rec) return this.#setOpen(run, rec, open);
    }
  }

  /** Opens every agent and spawn row above `agentId`, so its item is in the document and in view. */
  expandTo(agentId: string): HTMLLIElement | undefined {
    for (const run of this.#runs.values()) {
      let rec = run.agents.get(agentId);
      if (!rec) continue;
      const path: AgentRecord[] = [];
      for (let up = rec.view?.parentId ? run.agents.get(rec.view.parentId) : undefined; up; up = up.view?.parentId ? run.agents.get(up.view.parentId) : undefined) path.unshift(up);
      for (const ancestor of path) {
        this.ctx.remember(`agent:${ancestor.id}`, true);
        if (ancestor.li.getAttribute('aria-expanded') === 'false' || ancestor.stale) this.#setOpen(run, ancestor, true);
      }
      rec = run.agents.get(agentId)!;
      return rec.li.isConnected ? rec.li : undefined;
    }
    return undefined;
  }

  #placeRuns(): void {
    const active = this.#order.filter((id) => isActiveStatus(this.#runs.get(id)!.header.status)).length;
    this.#order.forEach((id, i) => {
      const run = this.#runs.get(id)!;
      const defaultOpen = i < Math.max(active, OPEN_RUNS);
      if (defaultOpen !== run.defaultOpen) {
        run.defaultOpen = defaultOpen;
        const root = run.agents.get(run.header.rootAgentId);
        if (root?.view) {
          const open = this.ctx.expanded(`agent:${root.id}`, defaultOpen || this.#busy(run).has(root.id));
          if (root.li.hasAttribute('aria-expanded')) this.#setOpen(run, root, open);
        }
      }
    });
    reconcile(this.list, this.#order.map((id) => this.#runs.get(id)!.tree));
    // Tab enters at the selected item, else the first (the newest run): not at whichever row had the stop before runs were added above it.
    resetTabStop(this.list);
  }
}

/** Shows an item expanded or folded: its aria state (CSS hides folded groups) and its twistie. */
export function setExpandedView(item: HTMLElement, expanded: boolean): void {
  item.setAttribute('aria-expanded', String(expanded));
  const twistieIcon = item.querySelector(':scope > .row .twistie');
  twistieIcon?.classList.toggle('codicon-chevron-down', expanded);
  twistieIcon?.classList.toggle('codicon-chevron-right', !expanded);
}

function setAttr(element: HTMLElement, name: string, value: string | null): void {
  if (element.getAttribute(name) === value) return;
  if (value === null) element.removeAttribute(name);
  else element.setAttribute(name, value);
}

/** Makes `parent`'s children exactly `wanted`, in order, moving only misplaced elements. */
function reconcile(parent: HTMLElement, wanted: readonly HTMLElement[]): void {
  const keep = new Set(wanted);
  for (const child of [...parent.children]) if (!keep.has(child as HTMLElement)) child.remove();
  let previous: Element | null = null;
  for (const element of wanted) {
    const expected: Element | null = previous ? previous.nextElementSibling : parent.firstElementChild;
    if (expected !== element) parent.insertBefore(element, expected);
    previous = element;
  }
}

/**
 * Replaces `old` with `next`, keeping keyboard focus where it was: on an
 * element that survives (moved over beforehand), or on the element of the
 * same test id in `next`.
 */
function replaceKeepingFocus(old: HTMLElement, next: HTMLElement, moveOver?: () => void): void {
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && old.contains(active) ? active : null;
  moveOver?.();
  old.replaceWith(next);
  if (!inside) return;
  const again = inside.isConnected ? inside : inside === old ? next : inside.dataset.testid ? next.querySelector<HTMLElement>(`[data-testid="${CSS.escape(inside.dataset.testid)}"]`) : null;
  if (again && document.activeElement !== again) {
    again.tabIndex = 0;
    again.focus();
  }
}
