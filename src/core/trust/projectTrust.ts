import { realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * Project trust: whether code that a folder's own files define may run.
 *
 * A cloned repository is someone else's files. Its agent files load and run
 * (their tools stay behind the permission gate), but nothing the project
 * defines runs on its own say until the user trusts the folder:
 *   - command hooks in the project's `.claude/settings.json` and
 *     `.claude/settings.local.json`,
 *   - MCP servers declared in project files,
 *   - project settings beyond what an untrusted folder may set (the
 *     restricted keys, and any value wider than the user's own).
 * Everything that runs such code asks one ProjectTrust, which the host
 * provides: VS Code from its workspace trust, the CLI from the user's
 * `trustedProjects`, the answer to its question, or `--trust-project`
 * (docs/security-trust.md).
 */
export interface ProjectTrust {
  /**
   * Whether project-defined code from files in `folder` may run. Asked at
   * each use, never cached by the caller: trust can be granted while a
   * session runs (VS Code's "Trust" button, the CLI's question).
   */
  isTrusted(folder: string): boolean;
}

/** Trusts no folder: the default wherever a host said nothing. */
export const TRUST_NOTHING: ProjectTrust = { isTrusted: () => false };

/** Trusts every folder: the CLI's `--trust-project` (for one command). */
export const TRUST_EVERYTHING: ProjectTrust = { isTrusted: () => true };

/** One decision for every folder at once: VS Code's workspace trust, the CLI's `--trust-project`. */
export function trustWhen(trusted: () => boolean): ProjectTrust {
  return { isTrusted: () => trusted() };
}

/**
 * The folders a user trusts, each with everything below it: trusting
 * `~/work` trusts `~/work/acme`. Compared with symlinks resolved, so a
 * trusted folder reached through a link still covers its projects, and a
 * link inside it that leads elsewhere does not carry trust out.
 */
export class TrustedFolders implements ProjectTrust {
  readonly #roots: string[] = [];

  constructor(roots: Iterable<string> = []) {
    for (const root of roots) this.add(root);
  }

  add(root: string): void {
    const real = realPath(root);
    if (!this.#roots.includes(real)) this.#roots.push(real);
  }

  get roots(): readonly string[] {
    return this.#roots;
  }

  isTrusted(folder: string): boolean {
    const real = realPath(folder);
    return this.#roots.some((root) => isWithin(real, root));
  }
}

/** Whether `folder` is `root` or lies below it (both as given: resolve links first where that matters). */
export function isWithin(folder: string, root: string): boolean {
  const rel = path.relative(root, folder);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The path with symlinks resolved; as given (absolute) when it does not exist yet. */
export function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
