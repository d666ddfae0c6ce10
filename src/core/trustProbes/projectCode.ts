import path from 'node:path';
import type { AgentDefinition } from '../agents/definition';
import { projectHookFiles } from '../hooks/hookSettingsFiles';
import type { ProjectTrust } from '../trust/projectTrust';
import { mcpServersProbe } from './mcpServers';

/**
 * What a folder's own files would run if it were trusted: asked before a
 * run so the CLI can put one question ("Do you trust the files in this
 * folder?") or, with nobody to answer, print one warning naming what it
 * skipped. Each kind of project-defined code contributes a probe; a host
 * adds what only it knows (the CLI: its project settings file).
 */
export interface ProjectCode {
  kind: 'hooks' | 'mcpServers' | 'settings';
  /** The project folder the code belongs to: the folder trust is asked for. */
  folder: string;
  /** The file that defines it. */
  file: string;
  /** What would run or apply, for messages: `2 hook commands`, `settings apiBaseUrl, maxTurns`. */
  what: string;
}

/** What a probe may take from the command instead of finding it again. */
export interface ProbeContext {
  /**
   * The agents discovery finds in `cwd` (project and user agents among
   * them), when the command discovers them anyway: a run in this process
   * hands its catalog's, so the folder's agent files are read once.
   */
  agents?: () => Promise<readonly AgentDefinition[]>;
}

/** Finds one kind of project-defined code that applies to work in `cwd`. */
export type ProjectCodeProbe = (cwd: string, home: string, context: ProbeContext) => Promise<ProjectCode[]>;

const hooksProbe: ProjectCodeProbe = async (cwd, home) =>
  (await projectHookFiles(cwd, home)).map(({ dir, file, commands }) => ({
    kind: 'hooks',
    folder: dir,
    file,
    what: `${commands} hook command${commands === 1 ? '' : 's'}`,
  }));

/** Every probe the core knows; a module that runs another kind of project-defined code adds its own here. */
export const PROJECT_CODE_PROBES: ProjectCodeProbe[] = [hooksProbe, mcpServersProbe];

export async function findProjectCode(cwd: string, home: string, probes: readonly ProjectCodeProbe[] = PROJECT_CODE_PROBES, context: ProbeContext = {}): Promise<ProjectCode[]> {
  return (await Promise.all(probes.map((probe) => probe(path.resolve(cwd), home, context)))).flat();
}

/** The code whose folder `trust` does not cover. */
export function untrustedCode(code: readonly ProjectCode[], trust: ProjectTrust): ProjectCode[] {
  return code.filter((c) => !trust.isTrusted(c.folder));
}

/**
 * The one folder to ask about: the outermost of the folders the code comes
 * from. They all lie on the way up from the working folder, so trusting the
 * outermost covers the others.
 */
export function trustRoot(code: readonly ProjectCode[]): string | null {
  let root: string | null = null;
  for (const { folder } of code) if (root === null || folder.length < root.length) root = folder;
  return root;
}

/** `2 hook commands (/p/.claude/settings.json); settings apiBaseUrl (/p/.subagents/settings.json)`. */
export function describeProjectCode(code: readonly ProjectCode[]): string {
  return code.map((c) => `${c.what} (${c.file})`).join('; ');
}
