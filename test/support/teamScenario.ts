import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isAgent } from './agents';
import type { Reply, Script, ScriptedRequest, ToolUseSpec } from './scriptedServer';

/**
 * The team scenario every level of the tests plays (engine, CLI, VS Code)
 * and the benchmark builds on: a lead and two members, `alice` and `bob`.
 * The lead puts two tasks on the list, the second blocked by the first, and
 * spawns both members by name; bob's claim of the blocked task is refused
 * and he goes idle; alice claims and completes hers, writes alpha.txt and
 * tells bob, whose message wakes him; he claims, writes beta.txt and
 * completes; the lead reads the finished list and ends. The script decides
 * from each request alone (which agent, what its last call got back), so
 * it plays the same under any timing.
 */

export const LEAD = 'team-lead-agent';
export const WORKER = 'team-worker';

/** The marker of a member's first prompt, so the script knows who speaks: both run the same agent. */
export const memberMark = (name: string) => `[member:${name}]`;

export function teamAgentFiles(): Record<string, string> {
  return {
    [`.claude/agents/${LEAD}.md`]: `---\nname: ${LEAD}\ndescription: Leads a small team.\n---\nYou lead. [agent:${LEAD}]\n`,
    [`.claude/agents/${WORKER}.md`]: `---\nname: ${WORKER}\ndescription: Does one task of a team.\ntools: Read, Write, Edit, TaskList, TaskGet, TaskUpdate, SendMessage\n---\nYou work on the team's tasks. [agent:${WORKER}]\n`,
  };
}

/** The team file: `duo`, led by the lead agent, with alice and bob. */
export function teamFile(name = 'duo'): string {
  return [
    '---',
    `name: ${name}`,
    'description: Two workers and a lead that splits the work.',
    `lead: ${LEAD}`,
    'members:',
    `  - name: alice`,
    `    agent: ${WORKER}`,
    `    prompt: "${memberMark('alice')} You write the first part."`,
    `  - name: bob`,
    `    agent: ${WORKER}`,
    `    prompt: "${memberMark('bob')} You write the second part."`,
    '---',
    'Split the goal into two tasks, the second waiting for the first, and give one to each member.',
    '',
  ].join('\n');
}

/** Writes the agents and the team file into a project folder. */
export async function writeTeamProject(dir: string, team = 'duo'): Promise<void> {
  const files = { ...teamAgentFiles(), [`.subagents/teams/${team}.md`]: teamFile(team) };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

interface LastCall {
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError: boolean;
}

/** The last tool call of the conversation and what it got back, or null when the last assistant turn called none. */
function lastCalls(req: ScriptedRequest): LastCall[] {
  const assistant = [...req.messages].reverse().find((m) => m.role === 'assistant');
  if (!assistant || !Array.isArray(assistant.content)) return [];
  const uses = (assistant.content as Array<{ type: string; id?: string; name?: string; input?: Record<string, unknown> }>).filter((b) => b.type === 'tool_use');
  return uses.map((u) => {
    const result = req.toolResults.get(u.id!);
    return { name: u.name!, input: u.input ?? {}, result: result?.content ?? '', isError: result?.isError ?? false };
  });
}

function firstUserText(req: ScriptedRequest): string {
  const first = req.messages.find((m) => m.role === 'user');
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? '').join('\n');
}

function workingDirectory(req: ScriptedRequest): string {
  return /Working directory: (.+?)(?: \(an isolated git worktree|\n|$)/.exec(req.system)?.[1]?.trim() ?? '.';
}

function call(name: string, input: unknown): Reply {
  return { toolUses: [{ name, input } as ToolUseSpec] };
}

export interface TeamScriptOptions {
  /** Held before alice's first request: the test opens it once bob is idle, so his wake-up is by her message. */
  aliceMayStart?: Promise<void>;
  /** The member names the lead spawns (default alice and bob; the benchmark's eight). */
  members?: readonly string[];
}

/** The model for the scenario: the lead, and each member by the mark in its prompt. */
export function teamScript(options: TeamScriptOptions = {}): Script {
  return async (req) => {
    if (isAgent(req.system, LEAD)) return leadTurn(req, options.members ?? ['alice', 'bob']);
    if (isAgent(req.system, WORKER)) {
      const who = firstUserText(req);
      if (who.includes(memberMark('alice'))) {
        if (req.turn === 0) await options.aliceMayStart;
        return memberTurn(req, { task: '1', file: 'alpha.txt', tell: 'bob' });
      }
      if (who.includes(memberMark('bob'))) return memberTurn(req, { task: '2', file: 'beta.txt' });
      return { text: 'I have nothing to do.' };
    }
    return { text: `unexpected request for: ${req.system.slice(0, 80)}` };
  };
}

function leadTurn(req: ScriptedRequest, members: readonly string[]): Reply {
  const calls = lastCalls(req);
  if (req.turn === 0) {
    return {
      text: 'Two tasks, the second after the first.',
      toolUses: [
        { name: 'TaskCreate', input: { subject: 'Write alpha.txt', description: 'The first part.' } },
        { name: 'TaskCreate', input: { subject: 'Write beta.txt', description: 'The second part, after alpha.', blockedBy: ['1'] } },
      ],
    };
  }
  if (calls.some((c) => c.name === 'TaskCreate')) {
    return {
      text: 'Starting the team.',
      toolUses: members.map((name) => ({ name: 'Task', input: { name, description: `${name} works`, prompt: `${memberMark(name)} Take your task from the task list.` } })),
    };
  }
  const list = calls.find((c) => c.name === 'TaskList');
  if (list) {
    const open = /\[(pending|in_progress)\]/.test(list.result);
    return { text: open ? 'Some tasks are still open; waiting for the team.' : 'All tasks are completed: alpha.txt and beta.txt are written.' };
  }
  if (calls.some((c) => c.name === 'Task')) return { text: 'The team is at work; I wait for them.' };
  // Woken by what the teammates reported: read the list.
  return call('TaskList', {});
}

function memberTurn(req: ScriptedRequest, part: { task: string; file: string; tell?: string }): Reply {
  const [last] = lastCalls(req);
  const cwd = workingDirectory(req);
  if (!last) {
    // The first turn, or woken by a message after a refused claim: claim the task.
    return call('TaskUpdate', { taskId: part.task, status: 'in_progress' });
  }
  if (last.name === 'TaskUpdate' && last.input.status === 'in_progress') {
    if (last.isError) return { text: `My task #${part.task} is blocked: ${last.result}` };
    return call('Write', { file_path: path.join(cwd, part.file), content: `${part.file} by the team\n` });
  }
  if (last.name === 'Write') return call('TaskUpdate', { taskId: part.task, status: 'completed' });
  if (last.name === 'TaskUpdate' && last.input.status === 'completed') {
    if (part.tell) return call('SendMessage', { to: part.tell, message: `Task #${part.task} is done: ${part.file} is written. Your task is unblocked.` });
    return { text: `Task #${part.task} is done: ${part.file} is written.` };
  }
  if (last.name === 'SendMessage') return { text: `Task #${part.task} is done and ${part.tell} is told.` };
  return { text: 'Done.' };
}
