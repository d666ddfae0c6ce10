import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { applyEdits, modify, parse } from 'jsonc-parser';
import { writeFileAtomic } from '../core/atomicFile';
import { describeProjectCode, findProjectCode, trustRoot, untrustedCode, type ProbeContext, type ProjectCode, type ProjectCodeProbe } from '../core/trustProbes/projectCode';
import { TRUST_EVERYTHING, TRUST_NOTHING, TrustedFolders, trustWhen, type ProjectTrust } from '../core/trust/projectTrust';
import type { TrustSpec } from '../core/runtime/scopeSpec';
import { userHome, type CliIO } from './command';
import { terminalLine } from './render/terminalText';
import { loadSettings, TRUSTED_PROJECTS, trustedProjects, userSettingsFile, warnOnce } from './settingsFiles';

/**
 * Project trust in the CLI (docs/security-trust.md): before a command runs
 * agents in a folder whose files define code (hooks, MCP servers, settings
 * an untrusted project may not set), it finds out whether the user trusts
 * that folder, as Claude Code does:
 *   - `--trust-project`: trusted, for this command only;
 *   - a folder listed (or below one listed) in `trustedProjects` of the user
 *     settings file: trusted;
 *   - otherwise, on a terminal: asked once ("Do you trust the files in this
 *     folder?"); a yes is added to `trustedProjects`, so it is not asked again;
 *   - with nobody to answer (CI, scripts, --json): not trusted, and one
 *     warning names what was skipped and how to trust.
 * The answer is kept in the user settings file rather than a file of its
 * own: it is the list the user already reads and edits to trust a folder by
 * hand, so what the CLI remembers is visible and revoked in one place.
 * Project files can never trust themselves: only the user file is read.
 */

export interface TrustOptions {
  /** `--trust-project`. */
  flag: boolean;
  /** Whether a person can answer a question on this terminal. */
  interactive: boolean;
  /** Terminal streams for the question (default: the process's stdin and stderr). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** The kinds of project code to look for (default: every probe the core knows). */
  probes?: readonly ProjectCodeProbe[];
  /** The folder's agents, when the command discovers them anyway (a run in this process): not read a second time. */
  agents?: ProbeContext['agents'];
}

export async function decideProjectTrust(io: CliIO, cwd: string, options: TrustOptions): Promise<ProjectTrust> {
  if (options.flag) return TRUST_EVERYTHING;
  const warn = warnOnce(io);
  const trusted = new TrustedFolders(trustedProjects(io.env, warn));
  const code = [...(await findProjectCode(cwd, userHome(io.env), options.probes, options.agents ? { agents: options.agents } : {})), ...settingsCode(io, cwd)];
  const pending = untrustedCode(code, trusted);
  const root = trustRoot(pending);
  if (root === null) return trusted;
  const userFile = userSettingsFile(io.env);
  if (options.interactive) {
    const yes = await askTrust(options.input ?? process.stdin, options.output ?? process.stderr, root, pending, userFile);
    if (yes) {
      trusted.add(root);
      try {
        await rememberTrustedProject(userFile, root);
      } catch (error) {
        warn(`could not remember that you trust ${root} in ${userFile} (${error instanceof Error ? error.message : String(error)}); it is trusted for this command only.`);
      }
      return trusted;
    }
  }
  warn(untrustedWarning(root, pending, userFile));
  return trusted;
}

/** The command's trust as the data a runtime request carries. */
export function trustSpec(trust: ProjectTrust): TrustSpec {
  if (trust === TRUST_EVERYTHING) return { kind: 'all' };
  if (trust instanceof TrustedFolders) return { kind: 'folders', roots: [...trust.roots] };
  if (trust === TRUST_NOTHING) return { kind: 'folders', roots: [] };
  throw new Error('A trust decision the runtime cannot carry.');
}

/** The project settings file's keys that only trust would let apply, as project code. */
function settingsCode(io: CliIO, cwd: string): ProjectCode[] {
  const loaded = loadSettings({ cwd, env: io.env, trust: trustWhen(() => false), warn: () => undefined });
  if (!loaded.projectFile || !loaded.projectRoot || loaded.withheld.length === 0) return [];
  return [{ kind: 'settings', folder: loaded.projectRoot, file: loaded.projectFile, what: `settings ${loaded.withheld.join(', ')}` }];
}

/** The one warning when the folder is not trusted: what was skipped, and how to trust it. */
export function untrustedWarning(root: string, code: readonly ProjectCode[], userFile: string): string {
  return (
    `${root} is not a trusted folder, so what its files define is skipped: ${describeProjectCode(code)}. ` +
    `If you trust it, pass --trust-project for one command, or add ${JSON.stringify(root)} to "${TRUSTED_PROJECTS}" in ${userFile} (a run in a terminal asks once and remembers).`
  );
}

/** Asks on the terminal; Enter alone, or anything but yes, is no. */
export async function askTrust(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, root: string, code: readonly ProjectCode[], userFile: string): Promise<boolean> {
  const lines = code.map((c) => `  ${terminalLine(c.what)} (${terminalLine(c.file)})`);
  const question =
    `\nDo you trust the files in this folder?\n\n  ${terminalLine(root)}\n\n` +
    `Its files define code that would run on your machine without asking:\n${lines.join('\n')}\n` +
    `Trust only a folder whose files you know. Its agents run either way, their tools still asking first.\n` +
    `Trust it? A yes is remembered in ${terminalLine(userFile)} ("${TRUSTED_PROJECTS}"). [y]es / [N]o: `;
  const rl = createInterface({ input, output, terminal: true });
  try {
    return (await rl.question(question)).trim().toLowerCase().startsWith('y');
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

/**
 * Adds `folder` to `trustedProjects` in the user settings file, keeping its
 * comments and layout (the edit VS Code makes to its own settings.json),
 * written atomically; the file is created when there is none.
 */
export async function rememberTrustedProject(userFile: string, folder: string): Promise<void> {
  const text = await readFile(userFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '{}\n';
    throw error;
  });
  const current: unknown = parse(text, [], { allowTrailingComma: true });
  const list = (current as Record<string, unknown> | null)?.[TRUSTED_PROJECTS];
  const formatting = { formattingOptions: { insertSpaces: true, tabSize: 2 } };
  const edits = Array.isArray(list)
    ? list.includes(folder)
      ? []
      : modify(text, [TRUSTED_PROJECTS, list.length], folder, { ...formatting, isArrayInsertion: true })
    : modify(text, [TRUSTED_PROJECTS], [folder], formatting);
  if (edits.length) await writeFileAtomic(userFile, applyEdits(text, edits));
}
