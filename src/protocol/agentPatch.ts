import type { AgentHead, AgentPatch, AgentView, ToolView } from './webview';

/**
 * Both ends of the Runs view's agent patches (see agentPatchSchema): the host
 * diffs an agent's new view against what it sent last; the webview merges a
 * patch into the view it holds. Kept together so they cannot drift apart.
 */

/** What the host last sent of one agent. */
export interface SentAgent {
  head: string;
  activity: string;
  tokens: number;
  costUsd: number;
  hiddenTools: number;
  children: string;
  tools: Map<string, string>;
  order: string;
}

function headOf(view: AgentView): AgentHead {
  const { id: _id, tokens: _t, costUsd: _c, activity: _a, tools: _tools, hiddenTools: _h, children: _ch, ...head } = view;
  return head;
}

/** The patch that brings `sent` up to `view` (and updates `sent`), or null when nothing changed. */
export function diffAgent(view: AgentView, sent: SentAgent | undefined): { patch: AgentPatch | null; sent: SentAgent } {
  const next: SentAgent = sent ?? { head: '', activity: '', tokens: -1, costUsd: -1, hiddenTools: -1, children: '', tools: new Map(), order: '\u0000' };
  const patch: AgentPatch = { id: view.id };
  let changed = false;
  const head = JSON.stringify(headOf(view));
  if (head !== next.head) {
    patch.head = headOf(view);
    next.head = head;
    changed = true;
  }
  if (!sent || view.activity !== next.activity) {
    patch.activity = next.activity = view.activity;
    changed = true;
  }
  if (view.tokens !== next.tokens || view.costUsd !== next.costUsd) {
    patch.tokens = next.tokens = view.tokens;
    patch.costUsd = next.costUsd = view.costUsd;
    changed = true;
  }
  if (view.hiddenTools !== next.hiddenTools) {
    patch.hiddenTools = next.hiddenTools = view.hiddenTools;
    changed = true;
  }
  const children = view.children.join('\n');
  if (!sent || children !== next.children) {
    patch.children = view.children;
    next.children = children;
    changed = true;
  }
  const rows: ToolView[] = [];
  const shown = new Set<string>();
  for (const tool of view.tools) {
    shown.add(tool.toolUseId);
    const json = JSON.stringify(tool);
    if (next.tools.get(tool.toolUseId) === json) continue;
    next.tools.set(tool.toolUseId, json);
    rows.push(tool);
  }
  for (const id of next.tools.keys()) if (!shown.has(id)) next.tools.delete(id);
  const order = view.tools.map((t) => t.toolUseId).join('\n');
  if (rows.length || order !== next.order) {
    patch.tools = { rows, order: view.tools.map((t) => t.toolUseId) };
    next.order = order;
    changed = true;
  }
  return { patch: changed ? patch : null, sent: next };
}

/** The webview's copy of an agent: its view, and its tool rows by id. */
export interface HeldAgent {
  view: AgentView;
  tools: Map<string, ToolView>;
}

/** Merges a patch; returns null for a patch of an agent never sent whole (it is dropped). */
export function mergeAgent(held: HeldAgent | undefined, patch: AgentPatch): { held: HeldAgent; changedTools: Set<string> } | null {
  if (!held && !patch.head) return null;
  const view: AgentView = held
    ? { ...held.view, ...(patch.head ?? {}) }
    : { id: patch.id, ...patch.head!, tokens: 0, costUsd: 0, activity: '', tools: [], hiddenTools: 0, children: [] };
  const tools = held?.tools ?? new Map<string, ToolView>();
  const changedTools = new Set<string>();
  if (patch.activity !== undefined) view.activity = patch.activity;
  if (patch.tokens !== undefined) view.tokens = patch.tokens;
  if (patch.costUsd !== undefined) view.costUsd = patch.costUsd;
  if (patch.hiddenTools !== undefined) view.hiddenTools = patch.hiddenTools;
  if (patch.children) view.children = patch.children;
  if (patch.tools) {
    for (const row of patch.tools.rows) {
      tools.set(row.toolUseId, row);
      changedTools.add(row.toolUseId);
    }
    const order = new Set(patch.tools.order);
    for (const id of tools.keys()) if (!order.has(id)) tools.delete(id);
    view.tools = patch.tools.order.map((id) => tools.get(id)).filter((t): t is ToolView => t !== undefined);
  }
  return { held: { view, tools }, changedTools };
}
