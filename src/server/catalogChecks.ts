import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { AgentDefinition, ShadowedDefinition } from '../core/agents/definition';
import type { AgentDir } from '../core/agents/sources/sources';
import type { Settings } from '../core/config';
import { field } from './agentDocument';
import type { AgentDocument, Span, ValueItem } from './documentModel';
import { toolItem } from './fieldChecks';
import { Code, listed, type Findings, type Fix } from './findings';
import type { FormatKnowledge } from './formatKnowledge';
import { SpawnGraph } from './spawnGraph';

/**
 * Checks that need every other agent: names in `spawns` and `Task(…)` that
 * do not exist, precedence (this file shadowed, or shadowing a bundled
 * agent), and the spawn graph (cycles, chains deeper than maxDepth).
 */

export interface CatalogView {
  /** Winners, in precedence order (the catalog's view of the files on disk). */
  agents: readonly AgentDefinition[];
  shadowed: readonly ShadowedDefinition[];
  dirs: readonly AgentDir[];
}

/** Where a definition stands in precedence: its dir's place, then its path within the dir. */
function rank(filePath: string, dirs: readonly AgentDir[]): [number, string] {
  for (let i = 0; i < dirs.length; i++) {
    const rel = path.relative(dirs[i]!.path, filePath);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return [i, rel.split(path.sep).join('/')];
  }
  return [dirs.length, filePath];
}

function before(a: [number, string], b: [number, string]): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] < b[1];
}

export function describeSource(agent: Pick<AgentDefinition, 'source' | 'family'>): string {
  return agent.family ? `${agent.source} agent (${agent.family})` : `${agent.source} agent`;
}

export function fileUri(filePath: string): string {
  return pathToFileURL(filePath).href;
}

/** The other files' definitions of a name (winner or shadowed), in no particular order. */
function othersNamed(view: CatalogView, own: AgentDefinition): AgentDefinition[] {
  const others: AgentDefinition[] = [];
  for (const d of view.agents) if (d.name === own.name && d.filePath !== own.filePath) others.push(d);
  for (const { definition: d } of view.shadowed) if (d.name === own.name && d.filePath !== own.filePath) others.push(d);
  return others;
}

/**
 * The definitions that win, with this file's as the editor holds it. The
 * catalog's winners are already in precedence order; only this file's
 * place can differ (it may be unsaved, or renamed), so only it is ranked.
 */
export function effectiveAgents(view: CatalogView, own: AgentDefinition | null): AgentDefinition[] {
  if (!own) return [...view.agents];
  const agents = view.agents.filter((d) => d.filePath !== own.filePath);
  // Renamed in the editor: what this file shadowed under its old name comes back.
  for (const { definition, shadowedBy } of view.shadowed) {
    if (shadowedBy.filePath === own.filePath && definition.name !== own.name && !agents.some((d) => d.name === definition.name)) {
      agents.push(definition);
    }
  }
  const index = agents.findIndex((d) => d.name === own.name);
  if (index === -1) agents.push(own);
  else if (before(rank(own.filePath, view.dirs), rank(agents[index]!.filePath, view.dirs))) agents[index] = own;
  return agents;
}

/** The `name` value's span, or the opening `---` for files named after themselves (Copilot). */
function nameSpan(doc: AgentDocument): Span {
  const entry = field(doc, 'name');
  if (entry && entry.valueSpan[1] > entry.valueSpan[0]) return entry.valueSpan;
  return doc.frontmatter.kind === 'none' ? [0, 0] : doc.frontmatter.openSpan;
}

/** Renames the agent: its `name` value, or a `name:` line for a file named after itself. */
function renameFix(doc: AgentDocument, name: string): Fix {
  const entry = field(doc, 'name');
  if (entry && entry.valueSpan[1] > entry.valueSpan[0]) return { title: `Rename the agent to "${name}"`, span: entry.valueSpan, newText: name };
  const at = doc.frontmatter.kind === 'none' ? 0 : doc.frontmatter.openSpan[1];
  return { title: `Rename the agent to "${name}"`, span: [at, at], newText: `\nname: ${name}` };
}

function freeName(name: string, own: AgentDefinition, taken: ReadonlySet<string>): string {
  const qualifier = (own.family ?? own.source).replace(/^\./, '');
  let candidate = `${name}-${qualifier}`;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}-${qualifier}-${n}`;
  return candidate;
}

export function checkPrecedence(doc: AgentDocument, own: AgentDefinition, view: CatalogView, findings: Findings): void {
  const others = othersNamed(view, own);
  const mine = rank(own.filePath, view.dirs);
  let winner: AgentDefinition | undefined;
  let winnerRank: [number, string] | undefined;
  for (const d of others) {
    const r = rank(d.filePath, view.dirs);
    if (before(r, mine) && (!winnerRank || before(r, winnerRank))) [winner, winnerRank] = [d, r];
  }
  const span = nameSpan(doc);
  if (winner) {
    const taken = new Set([...view.agents.map((d) => d.name), ...view.shadowed.map((s) => s.definition.name), own.name]);
    findings.add(span, DiagnosticSeverity.Warning, Code.shadowed,
      `"${own.name}" is shadowed by ${winner.filePath} (${describeSource(winner)}), which is found first: this file is not used. Rename the agent to use both.`,
      {
        fix: renameFix(doc, freeName(own.name, own, taken)),
        related: [{ location: { uri: fileUri(winner.filePath), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }, message: `the "${own.name}" in effect` }],
      });
    return;
  }
  const bundled = others.find((d) => d.source === 'bundled');
  if (bundled && own.source !== 'bundled') {
    findings.add(span, DiagnosticSeverity.Information, Code.shadowsBundled,
      `"${own.name}" replaces the agent of that name bundled with Subagents (${bundled.filePath}).`,
      { related: [{ location: { uri: fileUri(bundled.filePath), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }, message: `the bundled "${own.name}"` }] });
  }
}

/**
 * Agent names this file names as spawn targets: the items of its spawns list
 * (`spawns`, or Copilot's `agents`: the key its format reads) and
 * `Task(…)`/`Agent(…)` arguments.
 */
export function spawnTargets(doc: AgentDocument, format: FormatKnowledge): ValueItem[] {
  const targets: ValueItem[] = [];
  const list = format.spawnsKeys.map((key) => field(doc, key)).find((entry) => entry !== undefined);
  for (const item of list?.items ?? []) if (item.text !== '*') targets.push(item);
  for (const item of field(doc, 'tools')?.items ?? []) targets.push(...toolItem(item, doc.text).targets);
  return targets;
}

/** The spawn graph of a catalog state without one file's agent; kept while the catalog and the file stay the same. */
const graphs = new WeakMap<readonly AgentDefinition[], { filePath: string; graph: SpawnGraph }>();

function spawnGraph(view: CatalogView, filePath: string): SpawnGraph {
  const cached = graphs.get(view.agents);
  if (cached?.filePath === filePath) return cached.graph;
  const graph = new SpawnGraph(view.agents.filter((a) => a.filePath !== filePath));
  graphs.set(view.agents, { filePath, graph });
  return graph;
}

export function checkSpawns(doc: AgentDocument, format: FormatKnowledge, own: AgentDefinition | null, view: CatalogView, agents: readonly AgentDefinition[], settings: Settings, findings: Findings): void {
  const names = agents.map((a) => a.name);
  const graph = own && spawnGraph(view, own.filePath);
  for (const target of spawnTargets(doc, format)) {
    const agent = agents.find((a) => a.name === target.text);
    if (!agent) {
      findings.unknownName(target.span, DiagnosticSeverity.Warning, Code.unknownAgent, target.text, names,
        (didYouMean) => `No agent named "${target.text}".${didYouMean} Known agents: ${listed(names)}.`,
        (x) => `Change to "${x}"`);
      continue;
    }
    if (settings.disabledAgents.includes(agent.name)) {
      findings.add(target.span, DiagnosticSeverity.Information, Code.disabledAgent, `"${agent.name}" is disabled (subagents.disabledAgents): spawning it fails.`);
    }
    if (!own || !graph || agent.name === own.name) continue;
    const cycle = graph.pathBack(agent.name, own.name);
    if (cycle) {
      findings.add(target.span, DiagnosticSeverity.Warning, Code.spawnCycle,
        `Spawn cycle: ${[own.name, ...cycle].join(' → ')}. Each round nests one level deeper, until subagents.maxDepth (${settings.maxDepth}) stops it.`);
      continue;
    }
    const chain = graph.chainBeyond(own.name, agent.name, settings.maxDepth);
    if (chain) {
      findings.add(target.span, DiagnosticSeverity.Warning, Code.spawnDepth,
        `${chain.join(' → ')} is ${chain.length - 1} spawns deep, but subagents.maxDepth is ${settings.maxDepth}: started as a top-level agent, "${own.name}" cannot reach "${chain.at(-1)}" (${chain.at(-2)} gets no spawn tool).`);
    }
  }
}
