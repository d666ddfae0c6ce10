import os from 'node:os';
import { listAgentFiles } from '../sources/agentFiles';
import { bundledAgentsDir } from '../sources/bundled';
import type { DiscoveryWarning } from '../definition';
import type { Listing } from './listing';
import { AgentLoader, type DirScan, type LoaderHooks } from './loader';
import type { OutcomeStoreAccess } from './outcomeStore';
import { applyPrecedence, type DiscoveredAgents } from './precedence';
import { resolveAgentDirs, type AgentDir, type SourceOptions } from '../sources/sources';

/**
 * One-shot discovery: resolve the dirs, read them, apply
 * precedence. Never throws for anything found on disk; problems come back as
 * warnings. The watching catalog is built from the same pieces.
 */

export interface DiscoveryOptions {
  /** Workspace folder (or CLI cwd) the project walk starts from. */
  cwd: string;
  /** Home folder for user dirs and Claude Code's plugin registry; default os.homedir(). */
  home?: string;
  /** Configured plugin roots (setting `subagents.pluginDirs`, CLI `--plugin-dir`). */
  pluginDirs?: readonly string[];
  /** Also load Claude Code's installed plugins; default true. */
  loadClaudePlugins?: boolean;
  /** The bundled agents dir; default the extension's `agents/`; null to skip. */
  bundledDir?: string | null;
  /** False in an untrusted workspace: only user and bundled agents load. Default true. */
  includeProjectAndPlugins?: boolean;
  /** VS Code's `User/globalStorage` folder, where Roo Code and Kilo Code keep their global modes; default the stable build's on this platform. */
  editorStorage?: string;
  /** The environment variables home tools read for their folders (opencode's and Kilo's XDG_CONFIG_HOME, OPENCODE_CONFIG_DIR, KILO_CONFIG_DIR); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Files larger than this are skipped with a warning; default 1 MiB. */
  maxFileBytes?: number;
  hooks?: LoaderHooks;
  /**
   * Outcomes kept between processes, for listings: definitions served from
   * it have an empty systemPrompt (see OutcomeStore).
   */
  store?: OutcomeStoreAccess;
}

export interface DiscoveryResult extends DiscoveredAgents {
  /** The dirs searched, in precedence order. */
  dirs: AgentDir[];
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export function sourceOptions(options: DiscoveryOptions): SourceOptions {
  return {
    cwd: options.cwd,
    home: options.home ?? os.homedir(),
    pluginDirs: options.pluginDirs ?? [],
    loadClaudePlugins: options.loadClaudePlugins ?? true,
    bundledDir: options.bundledDir === undefined ? bundledAgentsDir() : options.bundledDir,
    includeProjectAndPlugins: options.includeProjectAndPlugins ?? true,
    ...(options.editorStorage ? { editorStorage: options.editorStorage } : {}),
    env: options.env ?? process.env,
  };
}

/** `oneShot`: the loader scans once and is dropped (see LoaderOptions.oneShot). */
export function createLoader(options: DiscoveryOptions, oneShot = false): AgentLoader {
  return new AgentLoader({ maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, hooks: options.hooks, store: options.store, oneShot });
}

export function combineScans(scans: readonly DirScan[], warnings: readonly DiscoveryWarning[]): DiscoveryResult {
  return { ...applyPrecedence(scans.map((scan) => scan.files), warnings), dirs: scans.map((scan) => scan.dir) };
}

export async function discoverAgents(options: DiscoveryOptions): Promise<DiscoveryResult> {
  return discoverListed(await listAgentDirs(options), options);
}

/** Discovery over dirs already resolved and listed (see listAgentDirs). */
export async function discoverListed(listing: Listing, options: DiscoveryOptions): Promise<DiscoveryResult> {
  const scans = await createLoader(options, true).scanDirs(listing.sources.dirs, { listed: listing.files });
  return combineScans(scans, listing.sources.warnings);
}

/** The first half of discovery: the dirs, and the files each lists; nothing read yet. */
export async function listAgentDirs(options: DiscoveryOptions): Promise<Listing> {
  const sources = await resolveAgentDirs(sourceOptions(options));
  return { sources, files: await Promise.all(sources.dirs.map((dir) => listAgentFiles(dir.path, dir.rules))) };
}
