import { execFile } from 'node:child_process';
import os from 'node:os';
import { childEnv } from '../../childEnv';

/**
 * The system prompt of an agent: the definition's body, then the
 * environment it works in. Kept byte-stable within a day for one directory,
 * so the prompt cache keeps hitting across turns and sibling agents.
 */
export interface PromptEnvironment {
  cwd: string;
  platform: string;
  date: string;
  gitBranch: string | null;
  isolated: boolean;
}

export function buildSystemPrompt(body: string, env: PromptEnvironment, extra: string[] = []): string {
  const lines = [
    `Working directory: ${env.cwd}${env.isolated ? ' (an isolated git worktree: your changes stay on its branch until the user applies them)' : ''}`,
    `Platform: ${env.platform}`,
    `Date: ${env.date}`,
    `Git branch: ${env.gitBranch ?? '(not a git repository)'}`,
  ];
  const sections = [body.trim(), `<environment>\n${lines.join('\n')}\n</environment>`, ...extra];
  return sections.filter(Boolean).join('\n\n');
}

/** Sibling agents start together in the same directory: one `git` call serves them all for a moment. */
const BRANCH_TTL_MS = 2000;
const branches = new Map<string, { at: number; branch: Promise<string | null> }>();

export function currentBranch(cwd: string): Promise<string | null> {
  const cached = branches.get(cwd);
  if (cached && Date.now() - cached.at < BRANCH_TTL_MS) return cached.branch;
  const branch = new Promise<string | null>((resolve) => {
    execFile('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd, timeout: 5000, env: childEnv() }, (error, stdout) => {
      resolve(error ? null : stdout.trim() || null);
    });
  });
  branches.set(cwd, { at: Date.now(), branch });
  if (branches.size > 64) branches.delete(branches.keys().next().value!);
  return branch;
}

/** `branch`: the branch when the caller knows it (an isolated agent's), which saves asking git on the way to the first request. */
export async function promptEnvironment(cwd: string, isolated: boolean, now = new Date(), branch?: string): Promise<PromptEnvironment> {
  return {
    cwd,
    platform: `${os.platform()} ${os.release()}`,
    date: now.toISOString().slice(0, 10),
    gitBranch: branch ?? (await currentBranch(cwd)),
    isolated,
  };
}
