import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { closest } from 'fastest-levenshtein';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseSettings, resolveUserPath, SETTING_DEFAULTS, SETTING_KEYS, settingSchema, type SettingKey, type Settings } from '../core/config';
import { projectValue } from '../core/projectSettings';
import { SettingsFileError, UsageError, userHome, type CliIO } from './command';
import { terminalLine } from './render/terminalText';
import { TrustedFolders, type ProjectTrust } from '../core/trust/projectTrust';

/**
 * The CLI's settings: the extension's `subagents.*` settings,
 * the same keys without the prefix, checked by the same schema
 * (src/core/config.ts), read from two JSON files (comments and trailing
 * commas allowed, as in VS Code's settings.json):
 *   user     $XDG_CONFIG_HOME/subagents/settings.json (default ~/.config)
 *   project  .subagents/settings.json in the working folder or its nearest
 *            ancestor that has one (like `.claude/agents/`)
 * Precedence, highest first: flags > project file > user file > defaults;
 * for apiBaseUrl, ANTHROPIC_BASE_URL in the environment wins over both
 * files, by the rule every surface shares (apiBaseUrl() in
 * src/core/engine/loop/client.ts). Objects (modelAliases)
 * merge key by key across layers, as VS Code merges them; other values,
 * lists included, replace. A key with a bad value is skipped with a warning
 * and the layer below applies; a file that is not a JSON object stops the
 * command (its keys cannot be told apart, and running without them could
 * surprise).
 *
 * Project trust's rule (src/core/projectSettings.ts): an untrusted project
 * file cannot set the restricted keys (a cloned repository could otherwise
 * send the API key to its own server, load its own code as plugin agents,
 * or widen the permission mode), and its limits and switches can only
 * narrow the user's; the history's retention follows the user file alone.
 * Trust comes from the user (src/cli/trust.ts): `trustedProjects` in the
 * user file, the CLI's question, or --trust-project; never from the project
 * itself, nor from the environment, which tools like direnv let a folder set.
 */

export const PROJECT_SETTINGS_FILE = path.join('.subagents', 'settings.json');
/** The user file's own key: the folders the user trusts (their project files may set restricted keys, their hooks run). */
export const TRUSTED_PROJECTS = 'trustedProjects';

export interface SettingsFlag {
  value: unknown;
  /** The flag as the user typed it, for messages. */
  flag: string;
}

export interface LoadSettingsOptions {
  /** The working folder: where the project file is looked for, and what relative plugin dirs of the user file mean. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags?: Partial<Record<SettingKey, SettingsFlag>>;
  /**
   * Project trust: whether the project file may set what an untrusted one
   * may not. Default: the folders of the user file's `trustedProjects`.
   */
  trust?: ProjectTrust;
  /** Read the user file only (for what follows the user alone: the shared history). */
  userOnly?: boolean;
  warn(message: string): void;
}

export interface LoadedSettings {
  settings: Settings;
  userFile: string;
  /** The project file found, if any. */
  projectFile: string | null;
  /** The folder holding `.subagents/`, if a project file was found. */
  projectRoot: string | null;
  /** Whether the project file may set the restricted keys. */
  trusted: boolean;
  /** Keys of the project file ignored because the project is not trusted. */
  withheld: SettingKey[];
}

export function userSettingsFile(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(userHome(env), '.config'), 'subagents', 'settings.json');
}

/** `.subagents/settings.json` in `cwd` or its nearest ancestor holding one, with its text. */
function findProjectSettings(cwd: string): { file: string; text: string } | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, PROJECT_SETTINGS_FILE);
    const text = readText(file);
    if (text !== null) return { file, text };
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * The file's text; null when there is no file. Opened without blocking and
 * checked before it is read: a FIFO (or a device) in a cloned repository's
 * `.subagents/settings.json` would otherwise hold the command for ever.
 */
function readText(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new SettingsFileError(`${file}: cannot be read (${code ?? (error as Error).message}).`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new SettingsFileError(`${file}: is not a regular file (${kindOf(info)}); make it a JSON file or remove it. Nothing was run.`);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof SettingsFileError) throw error;
    throw new SettingsFileError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  } finally {
    closeSync(fd);
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

/** The file's top-level object, or null when there is no file; throws SettingsFileError when it is not a JSON object. */
function readObject(file: string, text = readText(file)): Record<string, unknown> | null {
  if (text === null) return null;
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new SettingsFileError(
      `${file}:${lineAndColumn(text, first.offset)}: ${printParseErrorCode(first.error)}. Fix the file (JSON, comments allowed) or remove it; nothing was run.`,
    );
  }
  if (text.trim() === '') return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SettingsFileError(`${file}: must hold one JSON object of settings, like {"maxTurns": 50}; nothing was run.`);
  }
  return value as Record<string, unknown>;
}

function unknownKey(file: string, key: string): string {
  const bare = key.replace(/^subagents\./, '');
  if (bare !== key && (SETTING_KEYS as string[]).includes(bare)) return `${file}: "${key}" is ignored: write it without the "subagents." prefix, as "${bare}".`;
  return `${file}: unknown setting "${key}" is ignored (did you mean "${closest(key, SETTING_KEYS)}"?).`;
}

/** The valid settings of one file; everything else is reported and skipped. */
function validLayer(file: string, raw: Record<string, unknown>, dirBase: string, home: string, warn: (m: string) => void): Partial<Record<SettingKey, unknown>> {
  const layer: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === TRUSTED_PROJECTS) continue;
    if (!(SETTING_KEYS as string[]).includes(key)) {
      warn(unknownKey(file, key));
      continue;
    }
    const parsed = settingSchema(key as SettingKey).safeParse(value);
    if (!parsed.success) {
      warn(`${file}: "${key}" is ignored: ${parsed.error.issues[0]?.message ?? 'invalid value'} (got ${JSON.stringify(value)}).`);
      continue;
    }
    layer[key as SettingKey] = key === 'pluginDirs' ? (parsed.data as string[]).map((dir) => resolveUserPath(dir, dirBase, home)) : parsed.data;
  }
  return layer;
}

/** The folders the user file's `trustedProjects` names, resolved. */
export function trustedProjects(env: NodeJS.ProcessEnv, warn: (m: string) => void): string[] {
  const file = userSettingsFile(env);
  return listedProjects(file, readObject(file), userHome(env), warn);
}

function listedProjects(file: string, raw: Record<string, unknown> | null, home: string, warn: (m: string) => void): string[] {
  const value = raw?.[TRUSTED_PROJECTS];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    warn(`${file}: "${TRUSTED_PROJECTS}" is ignored: it must be a list of folder paths.`);
    return [];
  }
  return value.map((dir) => resolveUserPath(dir, path.dirname(file), home));
}

/** The project layer as it may apply over the user's settings (`base`): see src/core/projectSettings.ts. */
function narrowed(
  file: string,
  layer: Partial<Record<SettingKey, unknown>>,
  base: Settings,
  trusted: boolean,
  withheld: SettingKey[],
  warn: (message: string) => void,
): Partial<Record<SettingKey, unknown>> {
  const out: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, value] of Object.entries(layer) as [SettingKey, never][]) {
    const verdict = projectValue(key, value, base[key], trusted);
    if (verdict.apply) out[key] = verdict.value;
    else warn(`${file}: "${key}" is ignored: ${verdict.reason}.`);
    if (verdict.apply && verdict.note) warn(`${file}: "${key}": ${verdict.note}.`);
    if ((!verdict.apply && verdict.withheld) || (verdict.apply && verdict.note)) withheld.push(key);
  }
  return out;
}

function merge(layers: Partial<Record<SettingKey, unknown>>[]): Partial<Record<SettingKey, unknown>> {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      merged[key] = key === 'modelAliases' ? { ...((merged[key] as object | undefined) ?? SETTING_DEFAULTS.modelAliases), ...(value as object) } : value;
    }
  }
  return merged;
}

export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  const home = userHome(options.env);
  const cwd = path.resolve(options.cwd);
  const userFile = userSettingsFile(options.env);
  const userRaw = readObject(userFile);
  const found = options.userOnly ? null : findProjectSettings(cwd);
  const projectFile = found?.file ?? null;
  const projectRaw = found ? readObject(found.file, found.text) : null;
  const projectRoot = projectFile ? path.dirname(path.dirname(projectFile)) : null;

  const user = userRaw ? validLayer(userFile, userRaw, cwd, home, options.warn) : {};
  const trust = options.trust ?? new TrustedFolders(listedProjects(userFile, userRaw, home, options.warn));
  const trusted = projectRoot !== null && trust.isTrusted(projectRoot);
  const withheld: SettingKey[] = [];
  let project: Partial<Record<SettingKey, unknown>> = {};
  if (projectRaw && projectFile && projectRoot) {
    if (projectRaw[TRUSTED_PROJECTS] !== undefined) options.warn(`${projectFile}: "${TRUSTED_PROJECTS}" is ignored: only the user settings file (${userFile}) can trust a project.`);
    project = narrowed(projectFile, validLayer(projectFile, projectRaw, projectRoot, home, options.warn), parseSettings(merge([user])).settings, trusted, withheld, options.warn);
  }

  const flags: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, given] of Object.entries(options.flags ?? {}) as [SettingKey, SettingsFlag | undefined][]) {
    if (!given || given.value === undefined) continue;
    const parsed = settingSchema(key).safeParse(given.value);
    if (!parsed.success) throw new UsageError(`${given.flag}: ${parsed.error.issues[0]?.message ?? 'invalid value'} (got ${JSON.stringify(given.value)})`);
    flags[key] = parsed.data;
  }

  const { settings } = parseSettings(merge([user, project, flags]));
  return { settings, userFile, projectFile, projectRoot, trusted, withheld };
}

const printed = new WeakMap<object, Set<string>>();

/** Prints each warning once per command, to stderr. */
export function warnOnce(io: CliIO): (message: string) => void {
  let seen = printed.get(io);
  if (!seen) printed.set(io, (seen = new Set()));
  const known = seen;
  return (message: string) => {
    if (known.has(message)) return;
    known.add(message);
    io.stderr.write(`subagents: warning: ${terminalLine(message)}\n`);
  };
}

/** The settings for a command working in `cwd`, with each warning printed once per command to stderr. */
export function cliSettings(io: CliIO, cwd: string, options: { flags?: LoadSettingsOptions['flags']; trust?: ProjectTrust; userOnly?: boolean } = {}): Settings {
  return loadSettings({ cwd, env: io.env, ...options, warn: warnOnce(io) }).settings;
}
