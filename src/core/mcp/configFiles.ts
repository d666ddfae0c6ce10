import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import type { WarningSink } from '../agents/interpretation/fieldValues';
import { listClaudePluginRoots, readPluginManifest } from '../agents/sources/claudePlugins';
import { readServerMap, type ServerDialect } from '../agents/mcpServers/serverEntries';
import type { McpServerSpec } from '../agents/mcpServers/spec';

/**
 * The MCP servers configured outside agent files, which agent files name
 * (Claude Code's `- github`, Copilot's `github/*`, Gemini's `mcp_github_*`):
 * - Claude Code: the project's `.mcp.json` (the nearest one walking up),
 *   `~/.claude.json` (`mcpServers`: user scope; `projects[<folder>].mcpServers`:
 *   local scope), and each plugin's `.mcp.json` or `plugin.json` `mcpServers`
 *   (named `plugin:<plugin>:<server>`, as Claude Code names them). Project
 *   servers a Claude Code settings file lists in `disabledMcpjsonServers`
 *   are left out, as Claude Code leaves them out.
 * - Gemini CLI: `mcpServers` of `.gemini/settings.json` (project) and
 *   `~/.gemini/settings.json`.
 * - VS Code: the workspace's `.vscode/mcp.json` (`servers`, with `inputs`).
 *   In VS Code the editor runs these itself, and agents reach their tools
 *   through it; the CLI reads the file and runs them on its own.
 * - Copilot CLI: `~/.copilot/mcp-config.json` (`mcpServers`).
 * Every file is read defensively: missing means none, unreadable means none
 * plus a warning naming the file.
 */

export type ConfigSource = 'claude-project' | 'claude-local' | 'claude-user' | 'claude-plugin' | 'gemini-project' | 'gemini-user' | 'vscode-workspace' | 'copilot-user';

export interface NamedServer {
  name: string;
  spec: McpServerSpec;
  source: ConfigSource;
  file: string;
  /** The folder `${workspaceFolder}` and relative paths mean for it. */
  folder: string;
  /** Declared in a file the project brings: it starts only in a trusted folder. */
  projectFile: boolean;
  pluginRoot?: string;
}

export interface ConfigLocations {
  cwd: string;
  home: string;
  /** Plugin roots with their names (Claude Code's installed plugins and configured plugin folders). */
  plugins?: ReadonlyArray<{ root: string; name: string }>;
  /** Read `.vscode/mcp.json` (the CLI); VS Code runs those servers itself. */
  vscodeWorkspace: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Files read before, by size and time: the extension and the language server
 * list servers again and again, and `~/.claude.json` (Claude Code's history
 * too) can be large. Only files that parsed are kept.
 */
const parsedFiles = new Map<string, { size: number; mtimeMs: number; data: Json }>();
const MAX_PARSED_FILES = 64;

/** A JSON (with comments, as VS Code and Gemini allow) object file; null when missing. */
async function readObject(file: string, sink: WarningSink): Promise<Json | null> {
  let text: string;
  let size: number;
  let mtimeMs: number;
  try {
    ({ size, mtimeMs } = await stat(file));
    const known = parsedFiles.get(file);
    if (known && known.size === size && known.mtimeMs === mtimeMs) return known.data;
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') sink.warn(`${file}: cannot read it (${code ?? String(error)}); its MCP servers are not used`);
    return null;
  }
  // Comments and trailing commas, as VS Code's mcp.json and Gemini CLI's settings.json allow.
  const errors: ParseError[] = [];
  const parsed: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  const data = errors.length ? null : parsed;
  if (!isObject(data)) {
    sink.warn(`${file}: not a valid JSON object; its MCP servers are not used`);
    return null;
  }
  if (parsedFiles.size >= MAX_PARSED_FILES) parsedFiles.delete(parsedFiles.keys().next().value!);
  parsedFiles.set(file, { size, mtimeMs, data });
  return data;
}

/** The nearest `relative` walking up from `cwd` (inclusive) that exists, read. */
async function nearest(cwd: string, relative: string, sink: WarningSink): Promise<{ file: string; data: Json } | null> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, relative);
    const data = await readObject(file, sink);
    if (data) return { file, data };
    if (path.dirname(dir) === dir) return null;
  }
}

/** Where a warning about an entry of `file` goes: the entry's own message, prefixed with the file. */
function fileSink(file: string, sink: WarningSink): WarningSink {
  return { warn: (message) => sink.warn(`${file}: ${message}`) };
}

function entries(raw: unknown, field: string, dialect: ServerDialect, file: string, sink: WarningSink) {
  return readServerMap(raw, field, dialect, fileSink(file, sink));
}

/** `disabledMcpjsonServers` of the Claude Code settings that apply to `folder`. */
async function disabledProjectServers(folder: string, projectEntry: Json | null, sink: WarningSink): Promise<Set<string>> {
  const disabled = new Set<string>();
  const add = (list: unknown) => {
    if (Array.isArray(list)) for (const name of list) if (typeof name === 'string') disabled.add(name);
  };
  for (const file of ['settings.json', 'settings.local.json']) add((await readObject(path.join(folder, '.claude', file), sink))?.disabledMcpjsonServers);
  add(projectEntry?.disabledMcpjsonServers);
  return disabled;
}

/** The `projects` entry of `~/.claude.json` for the folder or its nearest listed ancestor. */
function projectEntryOf(claudeJson: Json | null, cwd: string): { folder: string; entry: Json } | null {
  const projects = claudeJson?.projects;
  if (!isObject(projects)) return null;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const entry = projects[dir];
    if (isObject(entry)) return { folder: dir, entry };
    if (path.dirname(dir) === dir) return null;
  }
}

/** Every server configured for `cwd`, in the order a name is looked up within one tool's files. */
export async function readConfiguredServers(locations: ConfigLocations, sink: WarningSink): Promise<NamedServer[]> {
  const { cwd, home } = locations;
  const out: NamedServer[] = [];
  const push = (found: Array<{ name: string; spec: McpServerSpec }>, source: ConfigSource, file: string, folder: string, projectFile: boolean, pluginRoot?: string) => {
    for (const { name, spec } of found) out.push({ name, spec, source, file, folder, projectFile, ...(pluginRoot ? { pluginRoot } : {}) });
  };

  // Claude Code: local scope, then project, then user (its own precedence).
  const claudeJsonFile = path.join(home, '.claude.json');
  const [claudeJson, mcpJson] = await Promise.all([readObject(claudeJsonFile, sink), nearest(cwd, '.mcp.json', sink)]);
  const local = projectEntryOf(claudeJson, cwd);
  if (local) push(entries(local.entry.mcpServers, 'mcpServers', 'claude', claudeJsonFile, sink), 'claude-local', claudeJsonFile, local.folder, false);
  if (mcpJson) {
    const folder = path.dirname(mcpJson.file);
    const disabled = await disabledProjectServers(folder, local?.entry ?? null, sink);
    const servers = entries(mcpJson.data.mcpServers, 'mcpServers', 'claude', mcpJson.file, sink).filter((s) => !disabled.has(s.name));
    push(servers, 'claude-project', mcpJson.file, folder, true);
  }
  if (claudeJson) push(entries(claudeJson.mcpServers, 'mcpServers', 'claude', claudeJsonFile, sink), 'claude-user', claudeJsonFile, cwd, false);

  for (const plugin of locations.plugins ?? []) {
    const mcpFile = path.join(plugin.root, '.mcp.json');
    const manifestFile = path.join(plugin.root, '.claude-plugin', 'plugin.json');
    const [ownFile, manifest] = await Promise.all([readObject(mcpFile, sink), readObject(manifestFile, sink)]);
    let raw: unknown = ownFile ? (ownFile.mcpServers ?? ownFile) : undefined;
    let file = mcpFile;
    if (manifest?.mcpServers !== undefined) {
      if (typeof manifest.mcpServers === 'string') {
        file = path.resolve(plugin.root, manifest.mcpServers);
        const referenced = await readObject(file, sink);
        raw = referenced ? (referenced.mcpServers ?? referenced) : undefined;
      } else {
        raw = manifest.mcpServers;
        file = manifestFile;
      }
    }
    const servers = entries(raw, 'mcpServers', 'claude', file, sink).map((s) => ({ ...s, name: `plugin:${plugin.name}:${s.name}` }));
    push(servers, 'claude-plugin', file, cwd, false, plugin.root);
  }

  // Gemini CLI: project settings, then user settings.
  const geminiProject = await nearest(cwd, path.join('.gemini', 'settings.json'), sink);
  const geminiUserFile = path.join(home, '.gemini', 'settings.json');
  if (geminiProject && geminiProject.file !== geminiUserFile) {
    push(entries(geminiProject.data.mcpServers, 'mcpServers', 'gemini', geminiProject.file, sink), 'gemini-project', geminiProject.file, path.dirname(path.dirname(geminiProject.file)), true);
  }
  const geminiUser = await readObject(geminiUserFile, sink);
  if (geminiUser) push(entries(geminiUser.mcpServers, 'mcpServers', 'gemini', geminiUserFile, sink), 'gemini-user', geminiUserFile, cwd, false);

  if (locations.vscodeWorkspace) {
    const vscodeFile = await nearest(cwd, path.join('.vscode', 'mcp.json'), sink);
    if (vscodeFile) push(entries(vscodeFile.data.servers, 'servers', 'vscode', vscodeFile.file, sink), 'vscode-workspace', vscodeFile.file, path.dirname(path.dirname(vscodeFile.file)), true);
  }
  const copilotFile = path.join(home, '.copilot', 'mcp-config.json');
  const copilot = await readObject(copilotFile, sink);
  if (copilot) push(entries(copilot.mcpServers, 'mcpServers', 'copilot', copilotFile, sink), 'copilot-user', copilotFile, cwd, false);
  return out;
}

/** Which tool's files a name in a file of each format is looked up in first (its home tool's), the others after. */
export const LOOKUP_ORDER: Readonly<Record<string, readonly ConfigSource[]>> = {
  claude: ['claude-local', 'claude-project', 'claude-user', 'claude-plugin', 'gemini-project', 'gemini-user', 'vscode-workspace', 'copilot-user'],
  gemini: ['gemini-project', 'gemini-user', 'claude-local', 'claude-project', 'claude-user', 'claude-plugin', 'vscode-workspace', 'copilot-user'],
  copilot: ['vscode-workspace', 'copilot-user', 'claude-local', 'claude-project', 'claude-user', 'claude-plugin', 'gemini-project', 'gemini-user'],
};

/** The Claude Code session's own servers, which a Claude Code agent without a `tools` list also gets. */
export const CLAUDE_SESSION_SOURCES: readonly ConfigSource[] = ['claude-local', 'claude-project', 'claude-user', 'claude-plugin'];

/** The plugins whose MCP servers agents may name: Claude Code's installed ones (when loaded) and the configured plugin folders. */
export async function pluginRoots(options: { home: string; cwd: string; pluginDirs: readonly string[]; loadClaudePlugins: boolean }): Promise<Array<{ root: string; name: string }>> {
  const installed = options.loadClaudePlugins ? (await listClaudePluginRoots(options.home, options.cwd)).roots : [];
  const roots = [...installed.map((p) => ({ root: p.root, fallback: p.id.split('@')[0]! })), ...options.pluginDirs.map((root) => ({ root, fallback: path.basename(root) }))];
  return Promise.all(roots.map(async ({ root, fallback }) => ({ root, name: (await readPluginManifest(root, fallback)).name })));
}
