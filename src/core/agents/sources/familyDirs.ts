import { statSync } from 'node:fs';
import path from 'node:path';
import type { ListingRules } from './agentFiles';
import type { AgentFamily, AgentSource } from '../kinds';

/**
 * Where each family's home tool looks for agent files, in the order its
 * definitions win (first wins; for opencode and Kilo, the first is merged
 * over the rest field by field). Paths only: whether a folder holds anything
 * is the listing's business. Each entry that does not exist yet is also a
 * `candidate`, watched so that it is picked up when it appears.
 */

export interface FamilyDir {
  path: string;
  source: AgentSource;
  rules?: ListingRules;
}

export interface FamilyLocations {
  dirs: FamilyDir[];
  candidates: string[];
}

/** The environment variables home tools read for their folders (see configHome, opencodeFamily). */
export type ToolEnv = Readonly<Record<string, string | undefined>>;

export interface LocationContext {
  cwd: string;
  home: string;
  /** XDG_CONFIG_HOME, OPENCODE_CONFIG_DIR, KILO_CONFIG_DIR, as opencode and Kilo read them. */
  env: ToolEnv;
  /** False in an untrusted workspace: user folders only. */
  project: boolean;
  /** VS Code's `User/globalStorage` folder, where Roo Code and Kilo Code keep their global modes. */
  editorStorage: string;
}

/** Each family's agents folder below a project or the home folder (`.omp/agents`, `.factory/droids`). */
const AGENTS_FOLDER: Partial<Record<AgentFamily, string>> = { '.factory': 'droids' };

/** What each simple family's home tool lists: Codex TOML, Kiro JSON at the top, Gemini no `_` names, Qwen and Factory the top level only. */
const FAMILY_RULES: Partial<Record<AgentFamily, ListingRules>> = {
  '.codex': { toml: true },
  '.gemini': { skipUnderscore: true },
  '.qwen': { depth: 1 },
  '.kiro': { json: true },
  '.factory': { depth: 1 },
};

export function familyRules(family: AgentFamily): ListingRules | undefined {
  return FAMILY_RULES[family];
}

/**
 * The folder opencode and Kilo keep their global config folder in: as
 * xdg-basedir gives it to them, `$XDG_CONFIG_HOME` when set (not empty),
 * else `~/.config`.
 */
export function configHome(home: string, env: ToolEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg ? path.resolve(xdg) : path.join(home, '.config');
}

/** The user-level agents dir of a simple family; `.github`'s is Copilot CLI's `~/.copilot/agents`; opencode's and Kilo's follow XDG_CONFIG_HOME. */
export function userAgentsDir(family: AgentFamily, home: string, env: ToolEnv = process.env): string {
  switch (family) {
    case '.omp':
      return path.join(home, '.omp', 'agent', 'agents');
    case '.github':
      return path.join(home, '.copilot', 'agents');
    case '.opencode':
      return path.join(configHome(home, env), 'opencode', 'agents');
    case '.kilo':
      return path.join(configHome(home, env), 'kilo', 'agents');
    case '.roo':
      return path.join(home, '.roo');
    default:
      return path.join(home, family, AGENTS_FOLDER[family] ?? 'agents');
  }
}

/** VS Code's global storage folder on this platform, as the stable build names it. */
export function defaultEditorStorage(home: string, platform: NodeJS.Platform = process.platform): string {
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Code', 'User', 'globalStorage');
    case 'win32':
      return path.join(home, 'AppData', 'Roaming', 'Code', 'User', 'globalStorage');
    default:
      return path.join(home, '.config', 'Code', 'User', 'globalStorage');
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * The folders from `cwd` up to its git worktree's root (the nearest folder
 * holding `.git`), nearest first; without a repository, up to the file
 * system's root. opencode and Kilo read every config folder on this way.
 */
export function foldersUpToWorktree(cwd: string): string[] {
  const folders: string[] = [];
  for (let current = path.resolve(cwd); ; current = path.dirname(current)) {
    folders.push(current);
    if (isDirectory(path.join(current, '.git')) || isFile(path.join(current, '.git'))) return folders;
    if (path.dirname(current) === current) return folders;
  }
}

interface Collector extends FamilyLocations {
  /** A folder of agent files, listed if it exists, else watched. */
  folder(dirPath: string, source: AgentSource, rules?: ListingRules): void;
  /** Files of one folder (a root's `opencode.json`), listed if any exists, else watched. */
  files(folder: string, names: readonly string[], source: AgentSource): void;
}

function collector(): Collector {
  const out: Collector = {
    dirs: [],
    candidates: [],
    folder(dirPath, source, rules) {
      if (isDirectory(dirPath)) out.dirs.push({ path: dirPath, source, ...(rules ? { rules } : {}) });
      else out.candidates.push(dirPath);
    },
    files(folder, names, source) {
      const present = names.filter((name) => isFile(path.join(folder, name)));
      // Each absent name is watched: it may appear next to the one there. One that is there is content,
      // whose edits are read alone; watched as structure too, each edit would relist every dir.
      for (const name of names) if (!present.includes(name)) out.candidates.push(path.join(folder, name));
      if (present.length > 0) out.dirs.push({ path: folder, source, rules: { only: names } });
    },
  };
  return out;
}

/** A config folder's agent folders, highest first: `modes/`, `mode/` (flat, primary agents), `agents/`, `agent/`. */
function configFolder(out: Collector, dir: string, source: AgentSource, configFiles: readonly string[] | null): void {
  out.folder(path.join(dir, 'modes'), source, { depth: 1 });
  out.folder(path.join(dir, 'mode'), source, { depth: 1 });
  out.folder(path.join(dir, 'agents'), source);
  out.folder(path.join(dir, 'agent'), source);
  if (configFiles) out.files(dir, configFiles, source);
}

/**
 * opencode (`.opencode`, `opencode.json`) and Kilo (`.kilocode` and `.kilo`,
 * `kilo.json`), which merge, in this order, lowest first: the global config
 * file; the project's config files from the worktree's root down to `cwd`;
 * then for each config folder — the global one (`$XDG_CONFIG_HOME/opencode`,
 * see configHome), every project folder from `cwd` up to the worktree's
 * root, the one in the home folder, then `$OPENCODE_CONFIG_DIR` (Kilo:
 * `$KILO_CONFIG_DIR`) — its config file and its agent folders. A folder
 * named twice counts once, where it first comes. Returned highest first.
 */
function opencodeFamily(ctx: LocationContext, tool: 'opencode' | 'kilo'): Collector {
  const out = collector();
  const names = tool === 'opencode' ? ['.opencode'] : ['.kilocode', '.kilo'];
  const configFiles = tool === 'opencode' ? ['opencode.json', 'opencode.jsonc'] : ['kilo.json', 'kilo.jsonc'];
  const globalDir = path.join(configHome(ctx.home, ctx.env), tool);
  const upward = ctx.project ? foldersUpToWorktree(ctx.cwd) : [];
  // Config folders, lowest first, as the home tool merges them; at one level `.kilo` after `.kilocode`.
  const folders: { dir: string; source: AgentSource }[] = [{ dir: globalDir, source: 'user' }];
  for (const level of upward) {
    for (const name of names) {
      const dir = path.join(level, name);
      // The home folder's own config folder is the user's, read last below.
      if (level !== ctx.home) folders.push({ dir, source: 'project' });
    }
  }
  for (const name of names) folders.push({ dir: path.join(ctx.home, name), source: 'user' });
  // The folder the environment names comes last, so it wins; relative to where the tool was started.
  const fromEnv = ctx.env[tool === 'opencode' ? 'OPENCODE_CONFIG_DIR' : 'KILO_CONFIG_DIR'];
  if (fromEnv) {
    const dir = path.resolve(ctx.cwd, fromEnv);
    if (dir !== globalDir && !folders.some((folder) => folder.dir === dir)) folders.push({ dir, source: 'user' });
  }
  for (const { dir, source } of folders.reverse()) configFolder(out, dir, source, dir === globalDir ? null : configFiles);
  // The project's config files, nearest first, then the global one.
  for (const level of upward) if (level !== ctx.home) out.files(level, configFiles, 'project');
  out.files(globalDir, [...configFiles, ...(tool === 'opencode' ? ['config.json'] : [])], 'user');
  if (tool === 'kilo') {
    // Kilo's custom modes (Roo Code's format), below its own agents; later files win there, so here they come first.
    if (ctx.project) out.files(ctx.cwd, ['.kilocodemodes'], 'project');
    out.files(ctx.home, ['.kilocodemodes'], 'user');
    out.files(path.join(ctx.home, '.kilocode', 'cli', 'global', 'settings'), ['custom_modes.yaml'], 'user');
    out.files(path.join(ctx.editorStorage, 'kilocode.kilo-code', 'settings'), ['custom_modes.yaml'], 'user');
  }
  return out;
}

/** Roo Code: the workspace folder's `.roomodes` (no walking up), then its global `custom_modes.yaml`. */
function rooFamily(ctx: LocationContext): Collector {
  const out = collector();
  if (ctx.project) out.files(ctx.cwd, ['.roomodes'], 'project');
  out.files(path.join(ctx.editorStorage, 'rooveterinaryinc.roo-cline', 'settings'), ['custom_modes.yaml'], 'user');
  return out;
}

/**
 * The dirs of the families whose home tools look beyond one project folder
 * and one user folder (opencode, Kilo, Roo Code); null for the others, which
 * sources.ts resolves the same way for all.
 */
export function layeredFamilyLocations(family: AgentFamily, ctx: LocationContext): FamilyLocations | null {
  switch (family) {
    case '.opencode':
      return opencodeFamily(ctx, 'opencode');
    case '.kilo':
      return opencodeFamily(ctx, 'kilo');
    case '.roo':
      return rooFamily(ctx);
    default:
      return null;
  }
}

/** The agents folder name of a simple family (`agents`, Factory's `droids`). */
export function agentsFolderName(family: AgentFamily): string {
  return AGENTS_FOLDER[family] ?? 'agents';
}
