import { isActiveStatus } from '../../protocol/vocabulary';
import type { AgentNode, RunSnapshot } from '../../protocol/runSnapshot';
import { diffAgent, type SentAgent } from '../../protocol/agentPatch';
import { type AgentPatch, type AgentView, type HostToWebview, type RunHeader, type RunUpdate } from '../../protocol/webview';

/**
 * What the Runs view is sent, worked out from RunStore snapshots: only the
 * agents whose projected view changed since the last message, and the order
 * of the runs shown (active ones first, then the newest). A 200-agent tree
 * that streams 5,000 events a second changes every agent in every batch, but
 * most of an agent's view (its tool rows) stays the same, so the webview
 * patches rows instead of rebuilding the tree. No `vscode` here: the Runs
 * view provider and the benchmark (bench/runsView.ts) drive the same code.
 */

export interface RunsFeedSource {
  /** Every run, newest first. */
  runs(): RunSnapshot[];
  run(runId: string): RunSnapshot | undefined;
  header(run: RunSnapshot): RunHeader;
  agentView(node: AgentNode): AgentView;
  /** Whether the view lists this run (Clear Finished hides ended ones). */
  shown(run: RunSnapshot): boolean;
}

/** Active runs first (running, waiting for approval, queued), then the rest; newest first within each. */
export function displayOrder(runs: readonly RunSnapshot[]): RunSnapshot[] {
  const active = runs.filter((r) => isActiveStatus(r.status));
  const rest = runs.filter((r) => !isActiveStatus(r.status));
  const newest = (a: RunSnapshot, b: RunSnapshot) => b.startedAt - a.startedAt;
  return [...active.sort(newest), ...rest.sort(newest)];
}

export class RunsFeed {
  /** What was last sent of each run header and agent, to send only what changed. */
  readonly #sentHeaders = new Map<string, string>();
  readonly #sentAgents = new Map<string, SentAgent>();
  readonly #agentsOfRun = new Map<string, Set<string>>();
  readonly #dirty = new Set<string>();
  readonly #urgent = new Set<string>();
  #all = true;
  #reset = true;
  #lastOrder = '';
  #listed: readonly string[] = [];

  /** `newRunsPerMessage`: the page size (a benchmark compares against sending every run at once). */
  constructor(
    private readonly source: RunsFeedSource,
    private readonly newRunsPerMessage = NEW_RUNS_PER_MESSAGE,
  ) {}

  /** The runs the view was last told to list, in its order. */
  get listed(): readonly string[] {
    return this.#listed;
  }

  /** The webview starts empty (first load, or shown again after being hidden): everything goes out next. */
  reset(): void {
    this.#sentHeaders.clear();
    this.#sentAgents.clear();
    this.#agentsOfRun.clear();
    this.#dirty.clear();
    this.#all = true;
    this.#reset = true;
    this.#lastOrder = '';
    this.#listed = [];
  }

  changed(runIds: Iterable<string>): void {
    for (const id of runIds) this.#dirty.add(id);
  }

  /** Resends these runs whole: their views changed without their snapshots (a worktree applied, runs hidden or shown). */
  touch(runIds: Iterable<string>): void {
    for (const id of runIds) {
      this.#forget(id);
      this.#dirty.add(id);
    }
  }

  /** Sends this run with the next message, whatever page it would have come in (a reveal needs it there). */
  include(runId: string): void {
    this.#urgent.add(runId);
    this.#dirty.add(runId);
  }

  /** Recomputes the order and every run (the set of shown runs changed). */
  touchAll(): void {
    this.#all = true;
  }

  get pending(): boolean {
    return this.#all || this.#dirty.size > 0;
  }

  /** The next message, or null when the webview is up to date. */
  take(now: number): HostToWebview | null {
    if (!this.pending) return null;
    const all = this.source.runs();
    const shown = displayOrder(all.filter((r) => this.source.shown(r)));
    const cleared = all.length - shown.length;
    const order = shown.map((r) => r.runId);
    const shownIds = new Set(order);
    const ids = this.#all ? order : [...this.#dirty];
    const updates: RunUpdate[] = [];
    // Runs the view has not had yet go a page at a time, in display order: the first message holds a screenful,
    // so the view shows it before the rest of a long history has been built, sent and taken in.
    const later: string[] = [];
    let firstSent = 0;
    for (const id of ids) {
      const run = shownIds.has(id) ? this.source.run(id) : undefined;
      if (!run) {
        this.#forget(id);
        continue;
      }
      if (!this.#sentHeaders.has(id) && !this.#urgent.has(id) && firstSent++ >= this.newRunsPerMessage) {
        later.push(id);
        continue;
      }
      const update = this.#update(run);
      if (update) updates.push(update);
    }
    for (const id of [...this.#sentHeaders.keys()]) if (!shownIds.has(id)) this.#forget(id);
    const reset = this.#reset;
    this.#all = false;
    this.#reset = false;
    this.#dirty.clear();
    this.#urgent.clear();
    for (const id of later) this.#dirty.add(id);
    const orderKey = `${cleared}\n${order.join('\n')}`;
    if (!reset && updates.length === 0 && orderKey === this.#lastOrder) return null;
    this.#lastOrder = orderKey;
    this.#listed = order;
    return { type: 'runs', reset, updates, order, cleared, now };
  }

  #update(run: RunSnapshot): RunUpdate | null {
    const header = this.source.header(run);
    const headerJson = JSON.stringify(header);
    const headerChanged = this.#sentHeaders.get(run.runId) !== headerJson;
    let known = this.#agentsOfRun.get(run.runId);
    if (!known) this.#agentsOfRun.set(run.runId, (known = new Set()));
    const agents: AgentPatch[] = [];
    for (const node of Object.values(run.agents)) {
      const { patch, sent } = diffAgent(this.source.agentView(node), this.#sentAgents.get(node.agentId));
      this.#sentAgents.set(node.agentId, sent);
      known.add(node.agentId);
      if (patch) agents.push(patch);
    }
    if (!headerChanged && agents.length === 0) return null;
    this.#sentHeaders.set(run.runId, headerJson);
    return { run: header, agents };
  }

  #forget(runId: string): void {
    this.#sentHeaders.delete(runId);
    for (const agentId of this.#agentsOfRun.get(runId) ?? []) this.#sentAgents.delete(agentId);
    this.#agentsOfRun.delete(runId);
  }
}

/**
 * Runs the view is told of for the first time per message: a screenful and
 * more (a folded run is one row). A history of hundreds of runs reaches the
 * view in pages, one per post, the newest first.
 */
export const NEW_RUNS_PER_MESSAGE = 40;

/** At most this often a message goes to the webview (about 30 a second; the store batches too, per 100 ms in a window's own runtime and per 16 ms in an agent host's copy). */
export const MIN_POST_INTERVAL_MS = 33;

/**
 * Sends what the feed has, when the webview can take it: not before it said
 * it is ready, and at most every MIN_POST_INTERVAL_MS however often the
 * store reports changes.
 */
export class FeedPump {
  #ready = false;
  #timer: NodeJS.Timeout | undefined;
  #lastPost = 0;

  constructor(
    readonly feed: RunsFeed,
    private readonly post: (message: HostToWebview) => void,
    private readonly minIntervalMs = MIN_POST_INTERVAL_MS,
  ) {}

  get ready(): boolean {
    return this.#ready;
  }

  /** The webview (re)loaded and is empty: it gets everything now. */
  start(): void {
    this.#ready = true;
    this.feed.reset();
    this.flush();
  }

  /** The webview lost its document (hidden): nothing goes out until it is ready again. */
  lost(): void {
    this.#ready = false;
    this.#cancel();
  }

  changed(runIds: Iterable<string>): void {
    this.feed.changed(runIds);
    this.schedule();
  }

  schedule(): void {
    if (this.#timer || !this.#ready) return;
    const wait = Math.max(0, this.#lastPost + this.minIntervalMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, wait);
  }

  /** Sends what is pending now (before a reveal, or when the webview became ready). */
  flush(): void {
    this.#cancel();
    if (!this.#ready) return;
    const message = this.feed.take(Date.now());
    if (message) this.sent(message);
    // The rest of a paged history follows at the pump's pace.
    if (this.feed.pending) this.schedule();
  }

  /** Posts a message of its own (status, reveal) and counts it against the rate. */
  sent(message: HostToWebview): void {
    this.#lastPost = Date.now();
    this.post(message);
  }

  dispose(): void {
    this.#cancel();
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
