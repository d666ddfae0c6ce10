import type { AgentFamily, AgentFormat } from '../kinds';
import { CLAUDE_CODE_FIELDS, CLAUDE_CODE_TOOLS } from './claudeCode';
import { CODEX_FIELDS } from './codex';
import { COPILOT_FIELDS, COPILOT_TOOLS } from './copilot';
import { GEMINI_FIELDS, GEMINI_TOOLS } from './gemini';
import { OH_MY_PI_FIELDS, OH_MY_PI_TOOLS } from './ohMyPi';
import type { FieldDoc, ToolTable } from './toolTable';

/**
 * The agent file formats, one table-driven module each: which tool names
 * mean which runtime tools, and which fields are read. The parser, the
 * README's format table and the language server all read these.
 */

export interface FormatSpec {
  format: AgentFormat;
  /** The home tool, as a user knows it. */
  title: string;
  /** Its tool names beyond the canonical ones (Codex files name no tools). */
  tools: ToolTable | null;
  /** The keys it reads, with one line each. */
  fields: readonly FieldDoc[];
  /** The keys that list the agents it may start, the first one written deciding (Copilot's `agents` is its spawns list). */
  spawnsKeys: readonly SpawnsKey[];
}

export type SpawnsKey = 'spawns' | 'agents';

export const FORMATS: Readonly<Record<AgentFormat, FormatSpec>> = {
  'claude-code': { format: 'claude-code', title: 'Claude Code', tools: CLAUDE_CODE_TOOLS, fields: CLAUDE_CODE_FIELDS, spawnsKeys: ['spawns'] },
  'oh-my-pi': { format: 'oh-my-pi', title: 'oh-my-pi', tools: OH_MY_PI_TOOLS, fields: OH_MY_PI_FIELDS, spawnsKeys: ['spawns'] },
  codex: { format: 'codex', title: 'Codex', tools: null, fields: CODEX_FIELDS, spawnsKeys: ['spawns'] },
  gemini: { format: 'gemini', title: 'Gemini CLI', tools: GEMINI_TOOLS, fields: GEMINI_FIELDS, spawnsKeys: ['spawns'] },
  copilot: { format: 'copilot', title: 'GitHub Copilot', tools: COPILOT_TOOLS, fields: COPILOT_FIELDS, spawnsKeys: ['spawns', 'agents'] },
};

const FAMILY_FORMATS: Readonly<Record<AgentFamily, AgentFormat>> = {
  '.omp': 'oh-my-pi',
  '.claude': 'claude-code',
  // Codex reads only TOML; Markdown agents found in its dir are read as Claude Code's.
  '.codex': 'claude-code',
  '.gemini': 'gemini',
  '.github': 'copilot',
};

/** Copilot's own suffixes, wherever the file is. */
const COPILOT_SUFFIX = /\.(agent|chatmode)\.md$/i;

/** COPILOT_SUFFIX.test, ruling most paths out without the regex (it runs for every file discovered). */
function hasCopilotSuffix(filePath: string): boolean {
  // Both suffixes have a `t` or `e` before `.md`.
  const beforeMd = filePath.charCodeAt(filePath.length - 4) | 0x20;
  return (beforeMd === 0x74 || beforeMd === 0x65) && COPILOT_SUFFIX.test(filePath);
}

/**
 * The format a file is read as: TOML is Codex's, a Copilot suffix is
 * Copilot's wherever it is, otherwise the format of the family whose dir
 * holds it; plugin and bundled agents are Claude Code's.
 */
export function formatOfFile(filePath: string, family: AgentFamily | null): AgentFormat {
  if (isTomlPath(filePath)) return 'codex';
  if (hasCopilotSuffix(filePath)) return 'copilot';
  return family ? FAMILY_FORMATS[family] : 'claude-code';
}

/** The agents folders of each family, as path segments (`/` or `\\` separated). */
const FAMILY_FOLDERS: readonly (readonly [RegExp, AgentFamily])[] = [
  [/[\\/]\.omp[\\/](?:agent[\\/])?agents[\\/]/, '.omp'],
  [/[\\/]\.claude[\\/]agents[\\/]/, '.claude'],
  [/[\\/]\.codex[\\/]agents[\\/]/, '.codex'],
  [/[\\/]\.gemini[\\/]agents[\\/]/, '.gemini'],
  [/[\\/](?:\.github[\\/](?:agents|chatmodes)|\.copilot[\\/]agents)[\\/]/, '.github'],
];

/**
 * For a path alone (an editor's open file): the family whose agents folder
 * holds it, and the format it is read as; null for a file that is in no
 * agents folder and has no Copilot suffix (a plugin's or bundled agent is
 * Claude Code's, but only discovery knows a folder is a plugin's).
 */
export function agentFileKind(filePath: string): { family: AgentFamily | null; format: AgentFormat } | null {
  // The innermost agents folder decides: search from the end.
  let best: { family: AgentFamily; at: number } | null = null;
  for (const [pattern, family] of FAMILY_FOLDERS) {
    const global = new RegExp(pattern.source, 'g');
    for (let match = global.exec(filePath); match; match = global.exec(filePath)) if (!best || match.index > best.at) best = { family, at: match.index };
  }
  if (best) {
    const format = formatOfFile(filePath, best.family);
    // Codex reads only TOML there; other TOML files are not agents.
    return isTomlPath(filePath) && best.family !== '.codex' ? null : { family: best.family, format };
  }
  return hasCopilotSuffix(filePath) ? { family: null, format: 'copilot' } : null;
}

/** `*.toml` in any case, without allocating (checked for every listed file). */
export function isTomlPath(filePath: string): boolean {
  const n = filePath.length;
  return (
    n > 5 &&
    filePath.charCodeAt(n - 5) === 0x2e &&
    (filePath.charCodeAt(n - 4) | 0x20) === 0x74 &&
    (filePath.charCodeAt(n - 3) | 0x20) === 0x6f &&
    (filePath.charCodeAt(n - 2) | 0x20) === 0x6d &&
    (filePath.charCodeAt(n - 1) | 0x20) === 0x6c
  );
}

/**
 * The name a Copilot file gets when its frontmatter has none: the file name
 * without `.agent.md`, `.chatmode.md` or `.md` (GitHub dedupes agents by it).
 */
export function copilotNameFromFile(filePath: string): string {
  const base = filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1);
  return base.replace(COPILOT_SUFFIX, '').replace(/\.md$/i, '');
}

export type { FieldDoc, ToolMapping, ToolTable } from './toolTable';
