import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpretStart, interpretStop, interpretTeamHook, subagentStartInput, subagentStopInput, taskInput, teammateIdleInput } from '../../../../src/core/hooks/hookProtocol';
import type { ShellCommandResult } from '../../../../src/core/shellCommand';
import { TRUST_NOTHING } from '../../../../src/core/trust/projectTrust';

const exited = (exitCode: number, stdout = '', stderr = ''): ShellCommandResult => ({ exitCode, signal: null, stdout, stderr, timedOut: false, spawnError: null, durationMs: 3 });
const info = { runId: 'run1', agentId: 'ag1', agentName: 'reviewer', parentId: null, cwd: '/repo', permissionMode: 'default', transcriptPath: '/t/ag1.jsonl', trust: TRUST_NOTHING };

test('hook input has exactly Claude Code fields', () => {
  assert.deepEqual(subagentStartInput(info), {
    session_id: 'run1',
    transcript_path: '/t/ag1.jsonl',
    cwd: '/repo',
    permission_mode: 'default',
    hook_event_name: 'SubagentStart',
    agent_id: 'ag1',
    agent_type: 'reviewer',
  });
  assert.deepEqual(subagentStopInput({ ...info, transcriptPath: null, lastAssistantMessage: 'done', stopHookActive: true }), {
    session_id: 'run1',
    transcript_path: '',
    cwd: '/repo',
    permission_mode: 'default',
    hook_event_name: 'SubagentStop',
    agent_id: 'ag1',
    agent_type: 'reviewer',
    stop_hook_active: true,
    agent_transcript_path: '',
    last_assistant_message: 'done',
  });
});

test('SubagentStart: additionalContext from hookSpecificOutput; plain stdout and empty output do nothing', () => {
  const json = (value: unknown) => exited(0, `${JSON.stringify(value)}\n`);
  assert.deepEqual(interpretStart(json({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: 'Use pnpm.' } })), { additionalContext: 'Use pnpm.' });
  assert.deepEqual(interpretStart(json({ hookSpecificOutput: { additionalContext: 'no event name is fine' } })), { additionalContext: 'no event name is fine' });
  assert.deepEqual(interpretStart(exited(0, 'hello from a hook\n')), {}, 'plain stdout is ignored for Start');
  assert.deepEqual(interpretStart(exited(0, '')), {});
  assert.deepEqual(interpretStart(json({ suppressOutput: true })), {});
  assert.deepEqual(interpretStart(json({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: '  ' } })), {});
});

test('SubagentStart: bad output and failures are warnings with no effect', () => {
  assert.match(interpretStart(exited(0, '{"hookSpecificOutput": ')).warning ?? '', /^printed invalid JSON \(.+\); ignored$/);
  assert.match(interpretStart(exited(0, JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'x' } }))).warning ?? '', /"PreToolUse" from a SubagentStart hook/);
  assert.match(interpretStart(exited(0, JSON.stringify({ hookSpecificOutput: { additionalContext: 42 } }))).warning ?? '', /not a string/);
  assert.deepEqual(interpretStart(exited(1, '', 'boom\nmore')), { warning: 'exited with code 1: boom' });
  assert.deepEqual(interpretStart(exited(2, '', 'Start hooks cannot block')), { warning: 'exited with code 2: Start hooks cannot block' }, 'exit 2 does not block a start');
  assert.deepEqual(interpretStart({ ...exited(0), exitCode: null, timedOut: true, durationMs: 500 }), { warning: 'timed out after 500 ms and was killed' });
  assert.deepEqual(interpretStart({ ...exited(0), exitCode: null, spawnError: 'spawn /bin/sh ENOENT' }), { warning: 'could not be started: spawn /bin/sh ENOENT' });
  assert.deepEqual(interpretStart({ ...exited(0), exitCode: null, signal: 'SIGTERM' }), { warning: 'was killed by SIGTERM' });
});

test('SubagentStop: exit 2 continues with stderr; {"decision":"block"} continues with the reason', () => {
  assert.deepEqual(interpretStop(exited(2, 'ignored stdout', 'Run the tests first.\n')), { continueWith: 'Run the tests first.' });
  assert.match(interpretStop(exited(2)).continueWith ?? '', /asked you to continue/, 'a silent exit 2 still blocks');
  assert.deepEqual(interpretStop(exited(0, JSON.stringify({ decision: 'block', reason: 'Add a summary.' }))), { continueWith: 'Add a summary.' });
  assert.deepEqual(interpretStop(exited(0, JSON.stringify({ decision: 'approve' }))), {});
  assert.deepEqual(interpretStop(exited(0, 'all good')), {});
  assert.match(interpretStop(exited(0, JSON.stringify({ decision: 'block' }))).warning ?? '', /without a "reason"/);
  assert.match(interpretStop(exited(0, '{oops')).warning ?? '', /invalid JSON/);
  assert.deepEqual(interpretStop(exited(1, '', 'nope')), { warning: 'exited with code 1: nope' });
  assert.deepEqual(interpretStop(exited(127, '', 'sh: 1: no-such-tool: not found')), { warning: 'exited with code 127: sh: 1: no-such-tool: not found' });
});

test('team events: Claude Code\'s input; exit 2 blocks with stderr, "continue": false stops, anything else decides nothing', () => {
  const team = { ...info, teammateName: 'alice', teamName: 'duo' };
  assert.deepEqual(teammateIdleInput(team), { session_id: 'run1', transcript_path: '/t/ag1.jsonl', cwd: '/repo', permission_mode: 'default', hook_event_name: 'TeammateIdle', teammate_name: 'alice', team_name: 'duo' });
  assert.deepEqual(taskInput('TaskCompleted', { ...team, taskId: '3', taskSubject: 'Ship', taskDescription: 'it' }), {
    session_id: 'run1',
    transcript_path: '/t/ag1.jsonl',
    cwd: '/repo',
    permission_mode: 'default',
    hook_event_name: 'TaskCompleted',
    task_id: '3',
    task_subject: 'Ship',
    task_description: 'it',
    teammate_name: 'alice',
    team_name: 'duo',
  });
  assert.deepEqual(interpretTeamHook(exited(2, '', ' Tests fail. \n'), 'TaskCompleted'), { block: 'Tests fail.' });
  assert.deepEqual(interpretTeamHook(exited(2), 'TeammateIdle'), { block: 'A TeammateIdle hook said no.' });
  assert.deepEqual(interpretTeamHook({ ...exited(2), timedOut: true }, 'TeammateIdle').block, undefined, 'a hook that timed out blocks nothing');
  assert.deepEqual(interpretTeamHook(exited(0, '{"continue": false, "stopReason": "Enough."}'), 'TeammateIdle'), { stop: 'Enough.' });
  assert.deepEqual(interpretTeamHook(exited(0, '{"continue": false}'), 'TaskCreated'), { stop: '' });
  assert.deepEqual(interpretTeamHook(exited(0, 'all good'), 'TaskCreated'), {});
  assert.match(interpretTeamHook(exited(1, '', 'boom'), 'TaskCreated').warning ?? '', /exited with code 1: boom/);
});
