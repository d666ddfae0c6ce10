import * as assert from 'node:assert/strict';
import { diffAgent } from '../../../src/protocol/agentPatch';
import { emptyUsage } from '../../../src/protocol/runEvents';
import type { AgentNode, RunSnapshot, ToolRow } from '../../../src/protocol/runSnapshot';
import { hostToWebviewSchema, webviewToHostSchema } from '../../../src/protocol/webview';
import { parseAgentText } from '../../../src/core/agents/parsing/parse';
import { agentTemplate, validateAgentName } from '../../../src/vscode/agentFileCommands';
import { renderTranscript } from '../../../src/vscode/transcriptDocument';
import { endNotice } from '../../../src/vscode/runNotifications';
import { displayPath, runView } from '../../../src/surfaces/views/viewModel';

// The pure pieces behind the surfaces: what the view is sent, how a
// transcript renders, what New Agent writes.

function node(id: string, overrides: Partial<AgentNode> = {}): AgentNode {
  return {
    agentId: id,
    runId: 'run1',
    parentId: null,
    parentToolUseId: null,
    agentName: id,
    description: `${id} task`,
    prompt: 'do it',
    model: 'claude-sonnet-5-5',
    depth: 0,
    cwd: '/repo',
    background: false,
    filePath: `/repo/.claude/agents/${id}.md`,
    status: 'running',
    startedAt: 1000,
    endedAt: null,
    text: 'first line\nsecond line',
    output: null,
    error: null,
    usage: { ...emptyUsage(), inputTokens: 100, outputTokens: 20, costUsd: 0.5 },
    turns: 1,
    retries: 0,
    tools: [],
    foldedTools: 0,
    children: [],
    worktree: null,
    worktreePath: null,
    ...overrides,
  };
}

function row(i: number, overrides: Partial<ToolRow> = {}): ToolRow {
  return { toolUseId: `t${i}`, name: 'Read', inputSummary: `file${i}.ts`, status: 'ok', resultSummary: '3 lines', startedAt: i, durationMs: 5, childAgentId: null, ...overrides };
}

describe('the view model', () => {
  it('sends the newest tool rows and every spawn row, and counts the rest', () => {
    const tools = Array.from({ length: 60 }, (_, i) => row(i));
    tools[2] = row(2, { name: 'Task', childAgentId: 'child' });
    const run: RunSnapshot = {
      runId: 'run1',
      rootAgentId: 'lead',
      status: 'running',
      startedAt: 1000,
      endedAt: null,
      usage: emptyUsage(),
      version: 7,
      agents: { lead: node('lead', { tools, foldedTools: 5, children: ['child'] }), child: node('child', { parentId: 'lead', depth: 1 }) },
    };
    const view = runView(run, null, () => undefined);
    const lead = view.agents.lead!;
    assert.equal(lead.tools.length, 41);
    assert.equal(lead.tools[0]!.childAgentId, 'child', 'the spawn row was dropped');
    assert.equal(lead.hiddenTools, 5 + 19);
    assert.equal(lead.tokens, 120);
    assert.equal(lead.activity, 'second line');
    const { agents, ...header } = view;
    const patches = Object.values(agents).map((a) => diffAgent(a, undefined).patch);
    assert.equal(
      hostToWebviewSchema.safeParse({ type: 'runs', reset: true, updates: [{ run: header, agents: patches }], order: ['run1'], cleared: 0, now: 1 }).success,
      true,
    );
  });

  it('shows a finished worktree with its change counts', () => {
    const info = { path: '/wt', branch: 'subagents/docs-1', baseCommit: 'abc', filesChanged: 2, insertions: 5, deletions: 1 };
    const run: RunSnapshot = {
      runId: 'run1', rootAgentId: 'docs', status: 'completed', startedAt: 1, endedAt: 2, usage: emptyUsage(), version: 1,
      agents: { docs: node('docs', { status: 'completed', endedAt: 2, worktree: info }) },
    };
    const view = runView(run, 'app', () => undefined);
    assert.deepEqual(view.agents.docs!.worktree, { branch: 'subagents/docs-1', state: 'finished', filesChanged: 2, insertions: 5, deletions: 1, applied: 0 });
    assert.equal(view.agents.docs!.activity, '', 'an ended agent still shows live text');
    assert.equal(view.folder, 'app');
  });

  it('shows a waiting agent with the approval it asks for, not as live text', () => {
    const approval = { approvalId: 'ap1', toolUseId: 't1', toolName: 'Bash', kind: 'bash' as const, summary: 'npm test', requestedAt: 5 };
    const view = runView(
      { runId: 'run1', rootAgentId: 'a', status: 'waiting', startedAt: 1, endedAt: null, usage: emptyUsage(), version: 1, agents: { a: node('a', { status: 'waiting', approval }) } },
      null,
      () => undefined,
    );
    assert.deepEqual(view.agents.a!.approval, { approvalId: 'ap1', toolName: 'Bash', kind: 'bash', summary: 'npm test', protectedReason: null, detail: null });
    assert.equal(view.agents.a!.activity, '');
    const running = runView({ runId: 'run1', rootAgentId: 'a', status: 'running', startedAt: 1, endedAt: null, usage: emptyUsage(), version: 2, agents: { a: node('a', { approval: null }) } }, null, () => undefined);
    assert.equal(running.agents.a!.approval, null);
  });

  it('notifies about a run end only out of sight, or when changes wait for review', () => {
    const worktree = { path: '/wt', branch: 'subagents/docs-1', baseCommit: 'abc', filesChanged: 2, insertions: 5, deletions: 1 };
    const ended = { agentName: 'docs', status: 'completed' as const, error: null, worktree: null };
    assert.equal(endNotice(ended, true), null, 'a run that ends in sight needs no notification');
    assert.deepEqual(endNotice(ended, false), { level: 'info', text: 'docs finished.', buttons: ['Show in Runs', 'Show Transcript'] });
    // Out of sight, the answer's first line goes with it.
    assert.deepEqual(endNotice({ ...ended, output: '## Summary\n\nAll [3](command:x) tests pass.' }, false), {
      level: 'info',
      // The line after the heading; the link made inert (no command runs from a notification).
      text: 'docs finished: All [3]\u200b(command:x) tests pass.',
      buttons: ['Show Result', 'Show Transcript'],
    });
    assert.match(endNotice({ ...ended, worktree }, true)?.text ?? '', /2 changed files on subagents\/docs-1 to review/);
    // A nested agent's changes (the lead's docs-writer) notify too, naming whose they are.
    const nested = endNotice({ ...ended, agentName: 'tech-lead' }, true, [{ agentId: 'w', agentName: 'docs-writer', filesChanged: 1, branch: 'subagents/docs-writer-1' }]);
    assert.equal(nested?.text, 'tech-lead finished with 1 changed file from docs-writer on subagents/docs-writer-1 to review.');
    assert.deepEqual(nested?.buttons, ['Review Changes', 'Show in Runs']);
    assert.equal(endNotice({ ...ended, status: 'cancelled' }, false), null, 'the user stopped it');
    assert.equal(endNotice({ ...ended, status: 'failed', error: 'boom' }, false)?.level, 'error');
  });

  it('shows paths relative to the folder or the home folder', () => {
    assert.equal(displayPath('/repo/.claude/agents/a.md', '/repo', '/home/me'), '.claude/agents/a.md');
    assert.equal(displayPath('/home/me/.claude/agents/a.md', '/repo', '/home/me'), '~/.claude/agents/a.md');
    assert.equal(displayPath('/opt/plugins/agents/a.md', '/repo', '/home/me'), '/opt/plugins/agents/a.md');
  });

  it('accepts only well-formed messages from the webview', () => {
    assert.equal(webviewToHostSchema.safeParse({ type: 'agentAction', action: 'stop', agentId: 'a1' }).success, true);
    assert.equal(webviewToHostSchema.safeParse({ type: 'agentAction', action: 'rm -rf', agentId: 'a1' }).success, false);
    assert.equal(webviewToHostSchema.safeParse({ type: 'command', command: 'workbench.action.quit' }).success, false);
    assert.equal(webviewToHostSchema.safeParse({ type: 'openFile', filePath: '/etc/passwd' }).success, false, 'the Runs view names agents, never files');
    assert.equal(webviewToHostSchema.safeParse({ type: 'approval', agentId: 'a1', approvalId: 'p1', answer: 'allowAgent' }).success, true);
    assert.equal(webviewToHostSchema.safeParse({ type: 'approval', agentId: 'a1', approvalId: 'p1', answer: 'allowEverything' }).success, false);
    assert.equal(webviewToHostSchema.safeParse({ type: 'sendMessage', agentId: 'a1', text: 'only the docs' }).success, true);
    assert.equal(webviewToHostSchema.safeParse({ type: 'sendMessage', agentId: 'a1', text: '' }).success, false, 'an empty message is not sent');
    assert.equal(webviewToHostSchema.safeParse({ type: 'sendMessage', agentId: 'a1', text: 'x'.repeat(20_001) }).success, false, 'nor one past the box’s limit');
  });
});

describe('transcripts', () => {
  it('render text, tool calls with their input and truncated results, fenced safely', () => {
    const longResult = 'x'.repeat(5000);
    const text = renderTranscript(node('lead', { status: 'completed' }), [
      { role: 'user', content: 'Look at ```this```' },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.md' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `before \`\`\`\` after ${longResult}` }] },
    ]);
    assert.match(text, /## You\n\nLook at ```this```/);
    assert.match(text, /\*\*lead calls `Read`\*\*\n\n```json\n\{\n {2}"file_path": "a\.md"\n\}\n```/);
    assert.match(text, /`````\nbefore ```` after/, 'the result fence is not longer than the backticks inside it');
    assert.match(text, /… \(3\d{3} more characters\)/);
  });

  it('show a message read while the agent worked as a message from its sender, the rest of the text as it is', () => {
    const text = renderTranscript(node('worker', { status: 'completed' }), [
      { role: 'user', content: 'Survey the repo.' },
      {
        role: 'user',
        content: [{ type: 'text', text: '<message from="lead" agent-id="a1b2c3" id="m0a1b">\nOnly the docs.\n</message>\n\n<message from="user" id="m0c2d">\nAnd the tests,\nplease.\n</message>\n\nCarry on.' }],
      },
    ]);
    assert.match(text, /\*\*✉ Message from lead \(`a1b2c3`\), read at worker's turn:\*\*\n\n> Only the docs\./);
    assert.match(text, /\*\*✉ Message from you, read at worker's turn:\*\*\n\n> And the tests,\n> please\.\n\nCarry on\./);
  });

  it('show what a running agent is writing now', () => {
    const text = renderTranscript(node('lead', { text: 'Half a thought', tools: [row(1, { status: 'running', name: 'Bash', inputSummary: 'npm test' })] }), []);
    assert.match(text, /_\(writing…\)_\n\nHalf a thought/);
    assert.match(text, /_Running `Bash` npm test…_/);
  });
});

describe('New Agent', () => {
  it('validates names', () => {
    for (const ok of ['reviewer', 'db_migrations-2', 'A1']) assert.equal(validateAgentName(ok), null, ok);
    for (const bad of ['', '-x', 'a b', 'a/b', '..', 'x'.repeat(65)]) assert.notEqual(validateAgentName(bad), null, JSON.stringify(bad));
  });

  it('writes a template every description survives', () => {
    for (const description of ['Plain words', 'Has: a colon', 'Has "quotes" and # hash', "It's quoted", 'Has [brackets] and {braces}', '@at and `backticks`', '- starts like a list']) {
      const parsed = parseAgentText(agentTemplate('x', description), { filePath: '/x.md', source: 'project', family: '.claude' });
      assert.deepEqual(parsed.warnings, [], description);
      assert.equal(parsed.definition?.description, description);
    }
  });
});
