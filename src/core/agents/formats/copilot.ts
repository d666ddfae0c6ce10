import { implicit, toolTable, tools, unsupported, type FieldDoc } from './toolTable';

/**
 * GitHub Copilot's custom agents: `.github/agents/*.md` and `*.agent.md`
 * (GitHub.com, Copilot CLI, VS Code), VS Code's older `*.chatmode.md`
 * (`.github/chatmodes/`), and Copilot CLI's `~/.copilot/agents/`.
 *
 * Sources: GitHub's "Custom agents configuration" reference (fields, and the
 * tool-alias table: execute/shell/Bash/powershell, read/NotebookRead,
 * edit/MultiEdit/Write/NotebookEdit, search/Grep/Glob,
 * agent/custom-agent/Task, web/WebSearch/WebFetch, todo/TodoWrite; all
 * case-insensitive; unknown names ignored), VS Code's custom agent file
 * reference (name defaults to the file name, `agents`, `handoffs`,
 * `argument-hint`, `user-invocable`, `disable-model-invocation`, model
 * fallback lists) and VS Code's tools reference (the namespaced tool and
 * tool-set names, and the flat names older files use).
 */

const EDITOR_ONLY = unsupported('a VS Code editor tool with no counterpart here');
const EDIT = tools('Edit', 'Write');
const SEARCH = tools('Grep', 'Glob');
const SHELL = tools('Bash');

export const COPILOT_TOOLS = toolTable([
  // GitHub's aliases (primary alias first, then its compatible aliases).
  [['execute', 'shell', 'Bash', 'powershell'], SHELL],
  [['read', 'Read', 'NotebookRead'], tools('Read')],
  [['edit', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'], EDIT],
  [['search', 'Grep', 'Glob'], SEARCH],
  [['agent', 'custom-agent', 'Task', 'runSubagent'], tools('Task')],
  [['web'], tools('WebSearch', 'WebFetch')],
  [['todo', 'todos', 'TodoWrite'], tools('TodoWrite')],

  // VS Code's namespaced tools.
  [['read/readFile', 'read/getNotebookSummary', 'read/readNotebookCellOutput'], tools('Read')],
  [['read/problems', 'read/terminalLastCommand', 'read/terminalSelection'], EDITOR_ONLY],
  [['search/codebase', 'search/searchSubagent'], tools('Read', 'Grep', 'Glob')],
  [['search/fileSearch'], tools('Glob')],
  [['search/listDirectory'], tools('LS')],
  [['search/textSearch', 'search/usages'], tools('Grep')],
  [['search/changes', 'search/searchResults'], EDITOR_ONLY],
  [['edit/editFiles'], EDIT],
  [['edit/createFile', 'edit/createDirectory'], tools('Write')],
  [['edit/editNotebook'], tools('Edit')],
  [['edit/rename'], EDITOR_ONLY],
  [
    [
      'execute/runInTerminal',
      'execute/getTerminalOutput',
      'execute/awaitTerminal',
      'execute/killTerminal',
      'execute/createAndRunTask',
      'execute/runTask',
      'execute/getTaskOutput',
      'execute/runTests',
      'execute/runNotebookCell',
    ],
    SHELL,
  ],
  [['execute/testFailure'], EDITOR_ONLY],
  [['web/fetch'], tools('WebFetch')],
  [['web/githubRepo', 'githubRepo', 'githubTextSearch'], unsupported("VS Code's GitHub repository search has no counterpart here")],
  [['agent/runSubagent'], tools('Task')],
  [['vscode', 'browser', 'vscode/askQuestions', 'vscode/extensions', 'vscode/getProjectSetupInfo', 'vscode/installExtension', 'vscode/runCommand', 'vscode/VSCodeAPI', 'vscode/newWorkspace', 'vscode/memory', 'newWorkspace'], EDITOR_ONLY],

  // The flat names of VS Code's earlier agent and chat-mode files.
  [['codebase'], tools('Read', 'Grep', 'Glob')],
  [['editFiles'], EDIT],
  [['createFile', 'createDirectory'], tools('Write')],
  [['editNotebook'], tools('Edit')],
  [['readFile'], tools('Read')],
  [['listDirectory'], tools('LS')],
  [['fileSearch', 'findTestFiles'], tools('Glob')],
  [['textSearch', 'usages'], tools('Grep')],
  [['runCommands', 'runInTerminal', 'getTerminalOutput', 'runTasks', 'runTests', 'runNotebooks'], SHELL],
  [['fetch'], tools('WebFetch')],
  [['think'], implicit('the model thinks without a tool here')],
  [
    ['changes', 'problems', 'testFailure', 'terminalLastCommand', 'terminalSelection', 'searchResults', 'vscodeAPI', 'extensions', 'new', 'openSimpleBrowser', 'updateUserPreferences', 'copilotCodingAgent', 'installExtension', 'runVscodeCommand', 'getProjectSetupInfo'],
    EDITOR_ONLY,
  ],
]);

/** Tool sets that may be written as `set/*` (VS Code) meaning the whole set. */
export const COPILOT_TOOL_SETS: ReadonlySet<string> = new Set(['read', 'edit', 'search', 'execute', 'web', 'agent', 'todo', 'vscode', 'browser']);

export const COPILOT_FIELDS: readonly FieldDoc[] = [
  { key: 'name', doc: 'Display name; optional: absent, the file name without `.agent.md` / `.chatmode.md` / `.md`.' },
  { key: 'description', doc: 'What the agent does; may be empty here.' },
  { key: 'tools', doc: 'GitHub aliases (execute, read, edit, search, agent, web, todo) and VS Code tool names (edit/editFiles, search/codebase, execute/runInTerminal …); absent or `*` = all; unknown names are ignored with a warning.' },
  { key: 'agents', doc: 'Which agents it may start (`*`, or names); the spawn tool itself comes from `agent` in tools.' },
  { key: 'model', doc: 'A display name (`Claude Sonnet 4.5 (copilot)`), an id or a fallback list; the first entry this runtime can run is used.' },
  { key: 'handoffs', doc: 'Follow-ups (label, agent, prompt, send, model) a surface may offer after the agent answers.' },
  { key: 'target', doc: '`vscode` or `github-copilot`: where the agent is meant to run; kept.' },
  { key: 'user-invocable', doc: '`false`: not offered for users to pick, only as a subagent.' },
  { key: 'disable-model-invocation', doc: '`true`: other agents should not start it on their own (also the retired `infer: false`).' },
  { key: 'argument-hint', doc: 'What to type after the agent\'s name.' },
  { key: 'mcp-servers', doc: 'MCP servers for the agent: a map of names to `{ type: local|stdio, command, args, env, tools }` or `{ type: http|sse, url, headers, tools }`, with `${{ secrets.X }}`/`$X` variables. Their tools are `server/tool` (`server/*` for all) in `tools`; a name in `tools` can also be a server of `.vscode/mcp.json` or a VS Code tool set (in VS Code). See docs/mcp.md.' },
  { key: 'metadata', doc: 'Name/value annotations; kept.' },
];
