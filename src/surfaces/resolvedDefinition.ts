import os from 'node:os';
import type { AgentDefinition, DiscoveryWarning, PermissionRule, ShadowedDefinition } from '../core/agents/definition';
import { FORMATS } from '../core/agents/formats';
import { AGENT_FAMILY_TITLES } from '../core/agents/kinds';
import { modelEffect } from '../core/agents/interpretation/modelNames';
import { assemblePrompt } from '../core/agents/interpretation/promptAssembly';
import type { Settings } from '../core/config';
import { resolveModel } from '../core/engine/loop/models';
import { buildSystemPrompt, promptEnvironment } from '../core/engine/loop/systemPrompt';
import { computeToolPool } from '../core/engine/tools/toolPool';
import { toolPattern } from '../core/agents/mcpServers/toolPatterns';
import { LISTED_TOOLS, type PermissionMode } from '../protocol/tools';

/**
 * What an agent gets when it runs, worked out without running it: the
 * prompt as it is sent (files read in as its format reads them, the
 * environment block after it), the tools after its format's names are
 * mapped and its mode and rules applied, its permission rules, its model
 * and every warning about its file. `subagents agents <name>` prints it,
 * and VS Code's Show Resolved Definition opens it as a document.
 */

export interface ResolvedDefinition {
  name: string;
  displayName: string | null;
  description: string;
  /** The home tool whose format the file is read in (`Roo Code`, `opencode` …). */
  format: string;
  family: string | null;
  source: AgentDefinition['source'];
  filePath: string;
  /** Files merged into it (opencode, Kilo), the winning one first; empty for one file. */
  mergedFrom: string[];
  prompt: { text: string; files: string[]; warnings: string[] };
  model: { written: string | null; runsOn: string; effect: string; runs: boolean };
  permissionMode: { mode: PermissionMode; fromFile: boolean };
  tools: {
    /** The runtime tools a run started by the user gets (its mode and depth applied), in request order. */
    offered: string[];
    /** MCP tools it names, matched against its servers when it runs. */
    mcp: string[];
    /** The file's list after mapping (null: every tool). */
    listed: string[] | null;
    denied: string[];
  };
  spawns: AgentDefinition['spawns'];
  rules: { action: PermissionRule['action']; tools: string[]; pattern: string | null; origin: string }[];
  limits: { maxTurns: number | null; thinkingLevel: string | null; background: boolean; isolation: string | null };
  /** Who may start it. */
  invocable: { byUser: boolean; byAgents: boolean };
  warnings: string[];
  /** Definitions of the same name it wins over (or was merged from). */
  shadows: { filePath: string; merged: boolean }[];
}

export interface ResolveOptions {
  settings: Settings;
  /** The folder a run would start in. */
  cwd: string;
  /** Whether the project folder is trusted (its files may bring in what lies outside it). */
  trusted: (folder: string) => boolean;
  warnings: readonly DiscoveryWarning[];
  shadowed: readonly ShadowedDefinition[];
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export async function resolveDefinition(definition: AgentDefinition, options: ResolveOptions): Promise<ResolvedDefinition> {
  const { settings } = options;
  const files = new Set([definition.filePath, ...(definition.mergedFrom ?? [])]);
  const assembled = await assemblePrompt(definition, { cwd: options.cwd, home: options.home ?? os.homedir(), env: options.env ?? process.env, trusted: options.trusted });
  const env = await promptEnvironment(options.cwd, false);
  const mode: PermissionMode = definition.permissionMode ?? settings.permissionMode;
  const pool = computeToolPool({ definition, runtime: LISTED_TOOLS, depth: 0, maxDepth: settings.maxDepth, mode });
  const effect = modelEffect(definition.model ?? 'inherit', settings.modelAliases);
  return {
    name: definition.name,
    displayName: definition.displayName ?? null,
    description: definition.description,
    format: FORMATS[definition.format ?? 'claude-code'].title,
    family: definition.family ? AGENT_FAMILY_TITLES[definition.family] : null,
    source: definition.source,
    filePath: definition.filePath,
    mergedFrom: definition.mergedFrom ?? [],
    prompt: { text: buildSystemPrompt(assembled.text, env), files: assembled.files, warnings: assembled.warnings },
    model: {
      written: definition.model,
      runsOn: resolveModel({ definition: definition.model, defaultModel: settings.defaultModel, aliases: settings.modelAliases }),
      effect: effect.text,
      runs: effect.runs,
    },
    permissionMode: { mode, fromFile: definition.permissionMode !== null },
    tools: {
      offered: pool.tools,
      mcp: (definition.tools ?? []).filter((tool) => toolPattern(tool) !== null),
      listed: definition.tools,
      denied: definition.disallowedTools,
    },
    spawns: pool.spawns,
    rules: (definition.permissions ?? []).map((rule) => ({ action: rule.action, tools: rule.tools, pattern: rule.pattern, origin: rule.origin })),
    limits: { maxTurns: definition.maxTurns ?? settings.maxTurns, thinkingLevel: definition.thinkingLevel, background: definition.background, isolation: definition.isolation },
    invocable: { byUser: definition.userInvocable !== false, byAgents: definition.modelInvocable !== false },
    warnings: options.warnings.filter((w) => files.has(w.filePath)).map((w) => w.message),
    shadows: options.shadowed.filter((s) => s.definition.name === definition.name).map((s) => ({ filePath: s.definition.filePath, merged: s.merged === true })),
  };
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : 'none';
}

/** The lines every rendering shares, as label → value. */
function facts(r: ResolvedDefinition): [string, string][] {
  const rows: [string, string][] = [
    ['Format', `${r.format}${r.family && r.family !== r.format ? ` (${r.family} folders)` : ''}, ${r.source}`],
    ['File', r.filePath || '(none)'],
  ];
  if (r.mergedFrom.length > 1) rows.push(['Merged from', r.mergedFrom.join(', ')]);
  if (r.displayName) rows.push(['Display name', r.displayName]);
  rows.push(['Description', r.description || '(none)']);
  rows.push(['Model', `${r.model.runsOn} — ${r.model.effect}`]);
  rows.push(['Permission mode', `${r.permissionMode.mode}${r.permissionMode.fromFile ? ' (the file\'s)' : ' (the setting\'s; the file sets none)'}`]);
  rows.push(['Tools', `${list(r.tools.offered)}${r.tools.mcp.length ? `; MCP: ${r.tools.mcp.join(', ')}` : ''}`]);
  if (r.tools.denied.length) rows.push(['Not offered', r.tools.denied.join(', ')]);
  rows.push(['Spawns', r.spawns === '*' ? 'any agent' : list(r.spawns)]);
  const limits = [
    r.limits.maxTurns !== null ? `at most ${r.limits.maxTurns} turns` : null,
    r.limits.thinkingLevel ? `thinking ${r.limits.thinkingLevel}` : null,
    r.limits.background ? 'starts in the background' : null,
    r.limits.isolation ? `isolation ${r.limits.isolation}` : null,
    !r.invocable.byUser ? 'only other agents start it' : null,
    !r.invocable.byAgents ? 'only you start it' : null,
  ].filter(Boolean);
  if (limits.length) rows.push(['Runs', limits.join('; ')]);
  return rows;
}

/** For a terminal. */
export function resolvedText(r: ResolvedDefinition): string {
  const lines = [r.name, ''];
  const rows = facts(r);
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) lines.push(`${`${label}:`.padEnd(width + 2)}${value}`);
  if (r.rules.length) {
    lines.push('', 'Permission rules (the last that matches a call decides):');
    for (const rule of r.rules) lines.push(`  ${rule.action.padEnd(5)} ${rule.origin}`);
  }
  if (r.shadows.length) {
    lines.push('', `Other definitions of "${r.name}":`);
    for (const s of r.shadows) lines.push(`  ${s.filePath} (${s.merged ? 'merged into this one' : 'shadowed'})`);
  }
  const warnings = [...r.warnings, ...r.prompt.warnings];
  if (warnings.length) {
    lines.push('', `Warnings (${warnings.length}):`);
    for (const warning of warnings) lines.push(`  ${warning}`);
  }
  lines.push('', `Prompt, as sent (${r.prompt.text.length} characters${r.prompt.files.length ? `; read from ${r.prompt.files.join(', ')}` : ''}):`, '', r.prompt.text, '');
  return lines.join('\n');
}

/** For an editor (VS Code's Show Resolved Definition). */
export function resolvedMarkdown(r: ResolvedDefinition): string {
  const escape = (text: string) => text.replace(/([\\`*_[\]|<>])/g, '\\$1');
  // Patterns and paths as code: read as written in the editor's source view, and in a preview.
  const code = (text: string) => {
    const ticks = '`'.repeat(Math.max(1, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
    return `${ticks}${pad}${text}${pad}${ticks}`;
  };
  const lines = [`# ${escape(r.name)}`, '', '| | |', '|---|---|'];
  for (const [label, value] of facts(r)) lines.push(`| ${label} | ${escape(value).replace(/\n/g, ' ')} |`);
  if (r.rules.length) {
    lines.push('', '## Permission rules', '', 'The last rule that matches a call decides; a call no rule matches is left to the permission mode.', '');
    for (const rule of r.rules) lines.push(`- **${rule.action}** — ${code(rule.origin)}`);
  }
  if (r.shadows.length) {
    lines.push('', `## Other definitions of ${escape(r.name)}`, '');
    for (const s of r.shadows) lines.push(`- ${code(s.filePath)} (${s.merged ? 'merged into this one' : 'shadowed'})`);
  }
  const warnings = [...r.warnings, ...r.prompt.warnings];
  if (warnings.length) {
    lines.push('', '## Warnings', '');
    for (const warning of warnings) lines.push(`- ${escape(warning)}`);
  }
  const fence = '`'.repeat(Math.max(3, ...[...r.prompt.text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  lines.push('', '## Prompt, as sent', '', `${r.prompt.text.length} characters${r.prompt.files.length ? `; read from ${r.prompt.files.map(escape).join(', ')}` : ''}.`, '', `${fence}text`, r.prompt.text, fence, '');
  return lines.join('\n');
}
