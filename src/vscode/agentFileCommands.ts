import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { pickFolder } from './pickers';
import type { Services } from './services';

/**
 * New Agent… and Refresh Agents. New Agent writes a Claude Code-style
 * agent file (the format every source family reads) into the project's
 * `.claude/agents/` or the user's `~/.claude/agents/`; the catalogs' watchers
 * pick it up, and the file opens for editing.
 */

export interface NewAgentArgs {
  name?: string;
  description?: string;
  location?: 'project' | 'user';
  folder?: string;
  /** Open the new file in an editor (default true). */
  open?: boolean;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Null when `name` can be an agent name (and a file name on every platform); otherwise why not. */
export function validateAgentName(name: string): string | null {
  if (!name) return 'Enter a name.';
  if (name.length > 64) return 'Keep the name to 64 characters or fewer.';
  if (!NAME_PATTERN.test(name)) return 'Use letters, digits, "-" and "_" only, starting with a letter or digit (it is also the file name).';
  return null;
}

/** A YAML scalar that survives any description: plain when safe, otherwise double-quoted. */
function yamlString(text: string): string {
  return /^[A-Za-z0-9][^:#\n"'\\]*$/.test(text) && !/\s$/.test(text) ? text : JSON.stringify(text);
}

export function agentTemplate(name: string, description: string): string {
  return `---
name: ${name}
description: ${yamlString(description)}
# Omit tools to allow every tool; list Task to let this agent delegate to others.
tools: Read, Grep, Glob
# inherit, sonnet, opus, haiku or a full model id
model: inherit
---

You are ${name}. ${description}

## How to work

1. Restate the task in one sentence and decide what "done" means.
2. Look things up in the code before you answer; cite the files you used.
3. Finish with a short summary of what you found or changed.
`;
}

export async function newAgentCommand(services: Services, args: NewAgentArgs = {}): Promise<string | undefined> {
  const title = 'Subagents: New Agent';
  const name =
    args.name ??
    (await vscode.window.showInputBox({
      title,
      prompt: 'Name of the agent (also its file name); other agents and you call it by this name.',
      placeHolder: 'e.g. migration-checker',
      validateInput: (v) => validateAgentName(v.trim()),
    }))?.trim();
  if (name === undefined) return undefined;
  const problem = validateAgentName(name);
  if (problem) {
    void vscode.window.showErrorMessage(`"${name}" cannot be an agent name: ${problem}`);
    return undefined;
  }
  const description =
    args.description ??
    (await vscode.window.showInputBox({
      title,
      prompt: 'When should it be used? Shown to the models that delegate to it and in every list.',
      placeHolder: 'e.g. Checks database migrations for locking problems. Use before merging a migration.',
      validateInput: (v) => (v.trim() ? null : 'A description is required: it is how other agents know when to use this one.'),
    }))?.trim();
  if (!description) return undefined;

  let location = args.location;
  if (!location) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: 'Project', description: '.claude/agents/ in the workspace folder', detail: 'Shared with everyone who works on this repository.', location: 'project' as const },
        { label: 'User', description: '~/.claude/agents/', detail: 'Yours, in every workspace.', location: 'user' as const },
      ],
      { title, placeHolder: `Where should ${name} live?` },
    );
    if (!picked) return undefined;
    location = picked.location;
  }
  let dir: string;
  let scopeFolder: string | undefined;
  if (location === 'project') {
    const scope = await pickFolder(services, args.folder);
    if (!scope) return undefined;
    dir = path.join(scope.folder.uri.fsPath, '.claude', 'agents');
    scopeFolder = scope.key;
  } else {
    dir = path.join(os.homedir(), '.claude', 'agents');
  }
  const file = path.join(dir, `${name}.md`);
  try {
    await mkdir(dir, { recursive: true });
    // 'wx': never overwrite an agent someone already wrote.
    await writeFile(file, agentTemplate(name, description), { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    void vscode.window.showErrorMessage(
      code === 'EEXIST'
        ? `${file} already exists; it was left as it is. Pick another name, or open that file to edit it.`
        : `Could not create ${file}: ${(error as Error).message}`,
    );
    return undefined;
  }
  services.log.info(`Created agent ${name} at ${file}.`);
  // The watcher would notice too; refreshing now makes the new agent usable at once.
  await Promise.all(services.scopes.all.filter((s) => !scopeFolder || s.key === scopeFolder).map((s) => s.catalog?.refresh()));
  if (args.open !== false) await vscode.window.showTextDocument(vscode.Uri.file(file));
  return file;
}

export async function refreshAgentsCommand(services: Services): Promise<number> {
  await Promise.all(services.scopes.all.map((s) => s.catalog?.refresh()));
  const count = services.scopes.all.reduce((sum, s) => sum + s.agents.length, 0);
  services.log.info(`Agents refreshed: ${count} agent(s) in ${services.scopes.all.length} folder(s).`);
  return count;
}
