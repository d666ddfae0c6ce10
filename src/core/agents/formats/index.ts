import type { AgentFamily, AgentFormat } from '../kinds';
import { CLAUDE_CODE_FIELDS, CLAUDE_CODE_TOOLS } from './claudeCode';
import { CODEX_FIELDS } from './codex';
import { COPILOT_FIELDS, COPILOT_TOOLS } from './copilot';
import { CURSOR_FIELDS } from './cursor';
import { FACTORY_FIELDS, FACTORY_TOOLS } from './factory';
import { GEMINI_FIELDS, GEMINI_TOOLS } from './gemini';
import { KIRO_FIELDS, KIRO_TOOLS } from './kiro';
import { OH_MY_PI_FIELDS, OH_MY_PI_TOOLS } from './ohMyPi';
import { OPENCODE_FIELDS, OPENCODE_TOOLS } from './opencode';
import { QWEN_FIELDS, QWEN_TOOLS } from './qwen';
import { ROO_FIELDS } from './roo';
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
  /** Its tool names match only as written (Qwen Code: `read_file` or `ReadFile`, never `Read`). */
  exactToolNames?: boolean;
}

export type SpawnsKey = 'spawns' | 'agents';

export const FORMATS: Readonly<Record<AgentFormat, FormatSpec>> = {
  'claude-code': { format: 'claude-code', title: 'Claude Code', tools: CLAUDE_CODE_TOOLS, fields: CLAUDE_CODE_FIELDS, spawnsKeys: ['spawns'] },
  'oh-my-pi': { format: 'oh-my-pi', title: 'oh-my-pi', tools: OH_MY_PI_TOOLS, fields: OH_MY_PI_FIELDS, spawnsKeys: ['spawns'] },
  codex: { format: 'codex', title: 'Codex', tools: null, fields: CODEX_FIELDS, spawnsKeys: ['spawns'] },
  gemini: { format: 'gemini', title: 'Gemini CLI', tools: GEMINI_TOOLS, fields: GEMINI_FIELDS, spawnsKeys: ['spawns'] },
  copilot: { format: 'copilot', title: 'GitHub Copilot', tools: COPILOT_TOOLS, fields: COPILOT_FIELDS, spawnsKeys: ['spawns', 'agents'] },
  cursor: { format: 'cursor', title: 'Cursor', tools: null, fields: CURSOR_FIELDS, spawnsKeys: [] },
  opencode: { format: 'opencode', title: 'opencode', tools: OPENCODE_TOOLS, fields: OPENCODE_FIELDS, spawnsKeys: [] },
  kilo: { format: 'kilo', title: 'Kilo Code', tools: OPENCODE_TOOLS, fields: OPENCODE_FIELDS, spawnsKeys: [] },
  roo: { format: 'roo', title: 'Roo Code', tools: null, fields: ROO_FIELDS, spawnsKeys: [] },
  qwen: { format: 'qwen', title: 'Qwen Code', tools: QWEN_TOOLS, fields: QWEN_FIELDS, spawnsKeys: [], exactToolNames: true },
  kiro: { format: 'kiro', title: 'Kiro', tools: KIRO_TOOLS, fields: KIRO_FIELDS, spawnsKeys: [] },
  factory: { format: 'factory', title: 'Factory', tools: FACTORY_TOOLS, fields: FACTORY_FIELDS, spawnsKeys: [] },
};

const FAMILY_FORMATS: Readonly<Record<AgentFamily, AgentFormat>> = {
  '.omp': 'oh-my-pi',
  '.cursor': 'cursor',
  '.claude': 'claude-code',
  // Codex reads only TOML; Markdown agents found in its dir are read as Claude Code's.
  '.codex': 'claude-code',
  '.gemini': 'gemini',
  '.github': 'copilot',
  '.opencode': 'opencode',
  // Kilo's custom modes files are Roo Code's format (modesFile below).
  '.kilo': 'kilo',
  '.roo': 'roo',
  '.qwen': 'qwen',
  '.kiro': 'kiro',
  '.factory': 'factory',
};

/** The files that hold custom modes (Roo Code's format), by name. */
const MODES_FILES: readonly string[] = ['.roomodes', '.kilocodemodes', 'custom_modes.yaml'];

function baseName(filePath: string): string {
  return filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1);
}

/** Whether a file holds custom modes (`.roomodes`, `.kilocodemodes`, `custom_modes.yaml`). */
export function isModesFile(filePath: string): boolean {
  // Compared in place: it runs for every file discovered, and a slice of the name per file adds up.
  for (const name of MODES_FILES) {
    const at = filePath.length - name.length;
    if (at >= 0 && filePath.endsWith(name) && (at === 0 || filePath.charCodeAt(at - 1) === 0x2f || filePath.charCodeAt(at - 1) === 0x5c)) return true;
  }
  return false;
}

/** `*.json` or `*.jsonc`: an opencode or Kilo config file, or a Kiro agent. */
export function isJsonPath(filePath: string): boolean {
  // /\.jsonc?$/i without the regex, which tries every position of the path.
  return hasExtension(filePath, '.json', 0) || hasExtension(filePath, '.jsonc', 0);
}

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
  if (family === '.kilo' && isModesFile(filePath)) return 'roo';
  return family ? FAMILY_FORMATS[family] : 'claude-code';
}

/** The agents folders of each family, as path segments (`/` or `\\` separated). */
const FAMILY_FOLDERS: readonly (readonly [RegExp, AgentFamily])[] = [
  [/[\\/]\.omp[\\/](?:agent[\\/])?agents[\\/]/, '.omp'],
  [/[\\/]\.cursor[\\/]agents[\\/]/, '.cursor'],
  [/[\\/](?:\.opencode|\.config[\\/]opencode)[\\/](?:agents?|modes?)[\\/]/, '.opencode'],
  [/[\\/](?:\.kilo|\.kilocode|\.config[\\/]kilo)[\\/](?:agents?|modes?)[\\/]/, '.kilo'],
  [/[\\/]\.qwen[\\/]agents[\\/]/, '.qwen'],
  [/[\\/]\.kiro[\\/]agents[\\/]/, '.kiro'],
  [/[\\/]\.factory[\\/]droids[\\/]/, '.factory'],
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
  const single = singleFileFamily(filePath);
  if (single) return { family: single, format: formatOfFile(filePath, single) };
  // The innermost agents folder decides: search from the end.
  let best: { family: AgentFamily; at: number } | null = null;
  for (const [pattern, family] of FAMILY_FOLDERS) {
    const global = new RegExp(pattern.source, 'g');
    for (let match = global.exec(filePath); match; match = global.exec(filePath)) if (!best || match.index > best.at) best = { family, at: match.index };
  }
  if (best) {
    const format = formatOfFile(filePath, best.family);
    // Codex reads only TOML there, Kiro JSON; other TOML and JSON files are not agents.
    if (isTomlPath(filePath) && best.family !== '.codex') return null;
    if (isJsonPath(filePath) && best.family !== '.kiro') return null;
    return { family: best.family, format };
  }
  return hasCopilotSuffix(filePath) ? { family: null, format: 'copilot' } : null;
}

/**
 * The family of a file that holds agents by its name alone: custom modes
 * files and opencode's and Kilo's config files (the folder they are in
 * decides nothing: a project root, a global settings folder).
 */
export function singleFileFamily(filePath: string): AgentFamily | null {
  const name = baseName(filePath);
  if (name === '.roomodes') return '.roo';
  if (name === '.kilocodemodes') return '.kilo';
  if (name === 'custom_modes.yaml') return /kilo/i.test(filePath) ? '.kilo' : '.roo';
  if (name === 'opencode.json' || name === 'opencode.jsonc') return '.opencode';
  if (name === 'kilo.json' || name === 'kilo.jsonc') return '.kilo';
  return null;
}

/**
 * Whether `filePath` ends with `ext` (a dot and lower-case letters) in any
 * case, with at least `before` characters before it; compared in place, as
 * these run for every file listed or discovered.
 */
function hasExtension(filePath: string, ext: string, before: number): boolean {
  const at = filePath.length - ext.length;
  if (at < before || filePath.charCodeAt(at) !== 0x2e) return false;
  for (let i = 1; i < ext.length; i++) if ((filePath.charCodeAt(at + i) | 0x20) !== ext.charCodeAt(i)) return false;
  return true;
}

/** `*.toml` in any case. */
export function isTomlPath(filePath: string): boolean {
  return hasExtension(filePath, '.toml', 1);
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
