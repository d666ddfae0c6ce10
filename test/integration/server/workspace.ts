import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A workspace of agent files for the language server tests: agents that
 * spawn each other (a cycle, a chain deeper than maxDepth), one shadowed by
 * another family's, one replacing a bundled agent; and an empty home folder
 * so the machine's own ~/.claude stays out of it.
 */
export interface ServerWorkspace {
  root: string;
  home: string;
  read(relPath: string): string;
  remove(): void;
}

function agent(name: string, description: string, fields: string[] = []): string {
  return ['---', `name: ${name}`, `description: ${description}`, ...fields, '---', `You are ${name}.`, ''].join('\n');
}

export const SERVER_WORKSPACE_FILES: Record<string, string> = {
  '.claude/agents/lead.md': agent('lead', 'Leads the team.', ['tools: read_file, Task(reviewer)', 'model: sonnet', 'spawns: [worker, reviewer]']),
  '.claude/agents/worker.md': agent('worker', 'Does the work.', ['spawns: [lead]']),
  '.claude/agents/reviewer.md': agent('reviewer', 'Reviews the work.'),
  '.claude/agents/explore.md': agent('explore', 'Our own explorer.'),
  '.claude/agents/needs-ghost.md': agent('needs-ghost', 'Spawns a ghost.', ['spawns: [ghost]']),
  '.claude/agents/a1.md': agent('a1', 'Chain start.', ['spawns: [a2]']),
  '.claude/agents/a2.md': agent('a2', 'Chain 2.', ['spawns: [a3]']),
  '.claude/agents/a3.md': agent('a3', 'Chain 3.', ['spawns: [a4]']),
  '.claude/agents/a4.md': agent('a4', 'Chain 4.', ['spawns: [a5]']),
  '.claude/agents/a5.md': agent('a5', 'Chain end.'),
  '.gemini/agents/reviewer.md': agent('reviewer', 'Another reviewer.'),
  // A Copilot agent names whom it may start in `agents`.
  '.github/agents/pong.agent.md': '---\ndescription: Pongs.\nagents: [ping]\n---\nPong.\n',
  // Its name is not on the first line: go to definition must find `name = "…"`.
  '.codex/agents/codex-reviewer.toml': 'description = "Reviews, in Codex."\ndeveloper_instructions = """\nReview.\n"""\nname = "codex-reviewer"\n',
  'README.md': '# A project\n',
};

export function serverWorkspace(files: Record<string, string> = SERVER_WORKSPACE_FILES): ServerWorkspace {
  // realpath: on macOS the temp dir is behind a symlink, and the server reports real paths.
  const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-lsp-')));
  const root = path.join(parent, 'project');
  const home = path.join(parent, 'home');
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return {
    root,
    home,
    read: (rel) => readFileSync(path.join(root, rel), 'utf8'),
    remove: () => rmSync(parent, { recursive: true, force: true }),
  };
}
