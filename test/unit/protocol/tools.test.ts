import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeToolPool } from '../../../src/core/engine/tools/toolPool';
import { createFileTools, FILE_TOOL_NAMES } from '../../../src/core/tools/fileTools';
import { todoWriteTool, webFetchTool, webSearchTool } from '../../../src/core/tools/planningTools';
import {
  approvalKind,
  approvalLabel,
  builtinTool,
  builtinToolByApiName,
  externalTool,
  isSpawnToolName,
  LISTED_TOOL_NAMES,
  LISTED_TOOLS,
  needsApproval,
  offeredTo,
  PERMISSION_MODES,
  type ToolSpec,
} from '../../../src/protocol/tools';

const noList = { tools: null, disallowedTools: [], spawns: '*' as const };

test('a built-in is found by its name or an alias in any case, a server tool by its API name', () => {
  assert.equal(builtinTool('agent')?.name, 'Task');
  assert.equal(builtinTool(' multiedit ')?.name, 'MultiEdit');
  assert.equal(builtinTool('Frobnicate'), undefined);
  assert.equal(builtinToolByApiName('web_search')?.name, 'WebSearch');
  assert.equal(builtinToolByApiName('WebSearch'), undefined, 'the API name, not ours');
  assert.ok(isSpawnToolName('Task') && isSpawnToolName('Agent') && !isSpawnToolName('TaskOutput'));
  assert.ok(!LISTED_TOOL_NAMES.includes('StructuredOutput' as never), 'the engine adds it; no file lists it');
});

test('the tools the runtime implements carry their registry facts', () => {
  const implemented = [...createFileTools(process.cwd()), todoWriteTool(), webSearchTool(), webFetchTool()];
  for (const tool of implemented) {
    const spec = builtinTool(tool.name);
    assert.ok(spec, `${tool.name} is in the registry`);
    assert.deepEqual({ kind: tool.kind, parallel: tool.parallel }, { kind: spec.kind, parallel: spec.parallel }, tool.name);
  }
  assert.deepEqual(new Set(createFileTools(process.cwd()).map((t) => t.name)), new Set(FILE_TOOL_NAMES));
  // Writers, and only writers, check for protected files.
  for (const tool of createFileTools(process.cwd())) assert.equal(Boolean(tool.protectedTarget), tool.kind === 'write', tool.name);
});

test('each permission mode runs, asks about or hides each kind as its table says', () => {
  const asks = (mode: (typeof PERMISSION_MODES)[number]) => (['read', 'write', 'exec', 'spawn'] as const).filter((kind) => needsApproval(mode, kind));
  assert.deepEqual(asks('default'), ['write', 'exec']);
  assert.deepEqual(asks('acceptEdits'), ['exec']);
  assert.deepEqual(asks('bypassPermissions'), []);
  // Plan mode offers no writer or shell; a hook command that still reaches the gate is asked about.
  assert.deepEqual(asks('plan'), ['write', 'exec']);
  // A protected file asks under acceptEdits too, never under bypassPermissions.
  assert.equal(needsApproval('acceptEdits', 'write', true), true);
  assert.equal(needsApproval('bypassPermissions', 'write', true), false);
  assert.equal(needsApproval('acceptEdits', 'read', true), false);

  assert.equal(offeredTo('write', 'plan', 0), false);
  assert.equal(offeredTo('exec', 'plan', 0), false);
  assert.equal(offeredTo('read', 'plan', 2), true);
  assert.equal(offeredTo('spawn', 'plan', 0), true, 'the run\'s first agent keeps the spawn tool');
  assert.equal(offeredTo('spawn', 'plan', 1), false, 'the agents it starts do not');
  for (const mode of PERMISSION_MODES.filter((m) => m !== 'plan')) for (const kind of ['read', 'write', 'exec', 'spawn'] as const) assert.ok(offeredTo(kind, mode, 5));
});

test('approvals are worded by kind and tool, one verb per act, in every surface', () => {
  assert.equal(approvalKind('exec'), 'bash');
  assert.equal(approvalKind('write'), 'edit');
  assert.equal(approvalKind('read'), null);
  assert.equal(approvalKind('spawn'), null);
  assert.deepEqual(approvalLabel('bash', 'Bash'), { verb: 'run a shell command', icon: 'terminal' });
  // One verb per act: a Write is a write everywhere, an Edit an edit; a tool that is not a file tool is named.
  assert.deepEqual(approvalLabel('edit', 'Write'), { verb: 'write', icon: 'edit' });
  assert.deepEqual(approvalLabel('edit', 'MultiEdit'), { verb: 'edit', icon: 'edit' });
  assert.deepEqual(approvalLabel('edit', 'create_issue'), { verb: 'use create_issue', icon: 'edit' });
});

test('a tool known only at run time joins by its read-only hint: plan mode keeps it only if it reads, default and acceptEdits ask only if it does not', () => {
  const search = externalTool('search_issues', 'github', true);
  const create = externalTool('create_issue', 'github', false);
  assert.deepEqual(search, { name: 'search_issues', kind: 'read', parallel: true, origin: 'github' });
  // Not read-only: it acts through another program, as a command does.
  assert.equal(create.kind, 'exec');
  assert.equal(needsApproval('default', search.kind), false);
  assert.equal(needsApproval('default', create.kind), true);
  assert.equal(needsApproval('acceptEdits', create.kind), true);
  assert.equal(needsApproval('bypassPermissions', create.kind), false);
  // Allowed on its own, never as a shell command or a file change.
  assert.equal(approvalKind(create.kind, create.origin), 'mcp');
  assert.equal(approvalKind(search.kind, search.origin), null);
  assert.equal(approvalKind('exec'), 'bash');

  const runtime: ToolSpec[] = [builtinTool('Read'), search, create];
  const pool = (mode: 'default' | 'plan', tools: string[] | null = null) => computeToolPool({ definition: { ...noList, tools }, runtime, depth: 0, maxDepth: 3, mode }).tools;
  assert.deepEqual(pool('default'), ['Read', 'search_issues', 'create_issue']);
  assert.deepEqual(pool('plan'), ['Read', 'search_issues']);
  // The allow-list applies to them as to built-ins, whatever the case written.
  assert.deepEqual(pool('default', ['Search_Issues']), ['search_issues']);
});

test('the pool follows the registry: web tools only when listed, companions with the spawn tool, `Agent` is `Task`', () => {
  const runtime = LISTED_TOOLS;
  const tools = (list: string[] | null, depth = 0) => computeToolPool({ definition: { ...noList, tools: list }, runtime, depth, maxDepth: 3, mode: 'default' }).tools;
  assert.ok(!tools(null).includes('WebSearch') && !tools(null).includes('WebFetch'));
  assert.ok(tools(['WebSearch']).includes('WebSearch'));
  assert.deepEqual(tools(['Agent', 'Read']), ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read']);
  assert.deepEqual(tools(['Agent', 'Read'], 3), ['Read'], 'no spawning at the maximum depth, companions included');
});
