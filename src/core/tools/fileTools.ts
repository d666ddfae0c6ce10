import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { betaAgentToolset20260401, resolvePath } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { atomicWriteFile } from '@anthropic-ai/sdk/tools/agent-toolset/fs-util';
import { builtinTool, type BuiltinToolName } from '../../protocol/tools';
import { currentText, type ApprovalPreview } from './approvalPreview';
import { inputValidator } from './inputValidation';
import { protectedTarget } from './protectedPaths';
import { field, oneLine, ToolCallError, type RuntimeTool, type ToolOutput, type ToolRunContext } from './runtimeTool';

/**
 * The file and shell tools, under the names agent files use (Claude Code's:
 * `Read, Write, Edit, MultiEdit, Glob, Grep, LS, Bash`). Read, Write, Edit,
 * Glob, Grep and Bash are the SDK's own implementations
 * (`betaAgentToolset20260401`: confined to the run's directory, symlink-aware,
 * size-capped); LS and MultiEdit, which the SDK lacks, are written here on the
 * SDK's own path confinement (`resolvePath`) and atomic write.
 */

const SDK_NAMES = { bash: 'Bash', read: 'Read', write: 'Write', edit: 'Edit', glob: 'Glob', grep: 'Grep' } as const satisfies Record<string, BuiltinToolName>;
type SdkName = keyof typeof SDK_NAMES;

/** The tools createFileTools makes. */
export const FILE_TOOL_NAMES: readonly BuiltinToolName[] = [...Object.values(SDK_NAMES), 'LS', 'MultiEdit'];

const DESCRIPTIONS: Record<SdkName, string> = {
  read: 'Read a UTF-8 text file. `file_path` is relative to the working directory (or absolute inside it). For large files pass `view_range: [start_line, end_line]`.',
  write: 'Create or overwrite a UTF-8 text file with `content`, creating parent directories as needed. Prefer Edit for changes to existing files.',
  edit: 'Replace `old_string` with `new_string` in a file. `old_string` must match exactly and be unique unless `replace_all` is true. Read the file first.',
  glob: 'Find files by glob pattern (e.g. `src/**/*.ts`) under the working directory, newest first.',
  grep: 'Search file contents with a regular expression; returns `path:line:text` matches. Optionally limit to `path`.',
  bash: 'Run a shell command in a persistent bash session in the working directory (state such as cwd and env vars persists between calls). Non-zero exit codes come back as errors.',
};

function summarize(name: SdkName, input: unknown): string {
  switch (name) {
    case 'read':
    case 'write':
    case 'edit':
      return field(input, 'file_path') ?? '';
    case 'glob':
      return [field(input, 'pattern'), field(input, 'path') && `in ${field(input, 'path')}`].filter(Boolean).join(' ');
    case 'grep':
      return [`"${field(input, 'pattern') ?? ''}"`, field(input, 'path') && `in ${field(input, 'path')}`].filter(Boolean).join(' ');
    case 'bash':
      return oneLine(field(input, 'command') ?? (field(input, 'restart') ? 'restart shell' : ''), 120);
  }
}

function countLines(text: string): number {
  return text ? text.split('\n').length : 0;
}

function summarizeOutput(name: SdkName, output: string): string {
  switch (name) {
    case 'read':
      return `${countLines(output)} lines`;
    case 'grep':
      return output === 'no matches' ? 'no matches' : `${countLines(output)} matches`;
    case 'glob':
      return output === 'no matches' ? 'no matches' : `${countLines(output)} files`;
    case 'bash':
      return output ? `${countLines(output)} lines of output` : 'no output';
    default:
      return oneLine(output);
  }
}

/** For a tool writing `file_path`: whether that file is one acceptEdits must still ask about. */
function protectedWrite(workdir: string): (input: unknown) => Promise<string | null> {
  return async (input) => {
    const file = field(input, 'file_path');
    return file ? protectedTarget(workdir, file) : null;
  };
}

/** A file write's preview: the file now and as the call would leave it (`change` returns null when the call cannot apply). */
function filePreview(workdir: string, change: (before: string | null, input: unknown) => string | null): (input: unknown) => Promise<ApprovalPreview | null> {
  return async (input) => {
    const file = field(input, 'file_path');
    if (!file) return null;
    let abs: string;
    try {
      abs = await resolvePath({ workdir }, file);
    } catch {
      return null;
    }
    const before = await currentText(abs);
    if (before === undefined) return null;
    let after: string | null;
    try {
      after = change(before, input);
    } catch {
      return null;
    }
    return after === null ? null : { kind: 'file', path: file, before, after };
  };
}

const writeChange = (_before: string | null, input: unknown) => field(input, 'content') ?? null;

/** Edit's replacement, as the SDK's Edit makes it: unique unless replace_all. */
function editChange(before: string | null, input: unknown): string | null {
  const oldString = field(input, 'old_string');
  const newString = field(input, 'new_string') ?? '';
  if (before === null || !oldString) return null;
  const all = typeof input === 'object' && input !== null && (input as { replace_all?: unknown }).replace_all === true;
  return applyEdits(before, [{ old_string: oldString, new_string: newString, replace_all: all }], '');
}

function multiEditChange(before: string | null, input: unknown): string | null {
  const edits = typeof input === 'object' && input !== null ? (input as { edits?: unknown }).edits : undefined;
  if (before === null || !Array.isArray(edits)) return null;
  return applyEdits(before, edits as EditSpec[], '');
}

function commandPreview(input: unknown): Promise<ApprovalPreview | null> {
  const command = field(input, 'command');
  return Promise.resolve({ kind: 'command', command: command ?? (field(input, 'restart') ? '(restart the shell)' : '') });
}

/** Runs an SDK runnable tool as our tool: validated input, SDK errors as tool errors. */
function fromSdk(tool: BetaRunnableTool, sdkName: SdkName, workdir: string): RuntimeTool {
  const schema = (tool as { input_schema: object }).input_schema;
  const spec = builtinTool(SDK_NAMES[sdkName]);
  const validate = inputValidator(spec.name, schema);
  return {
    ...spec,
    definition: { name: spec.name, description: DESCRIPTIONS[sdkName], input_schema: schema as never },
    ...(spec.kind === 'write' ? { protectedTarget: protectedWrite(workdir) } : {}),
    ...(sdkName === 'bash' ? { approvalPreview: commandPreview } : {}),
    ...(sdkName === 'write' ? { approvalPreview: filePreview(workdir, writeChange) } : {}),
    ...(sdkName === 'edit' ? { approvalPreview: filePreview(workdir, editChange) } : {}),
    summarizeInput: (input) => summarize(sdkName, input),
    summarizeResult: (output) => summarizeOutput(sdkName, output),
    run: async (input: unknown, context: ToolRunContext): Promise<ToolOutput> => {
      const args = validate(input);
      const toolUse = { id: context.toolUseId, type: 'tool_use' as const, name: sdkName, input: args };
      try {
        return await tool.run(tool.parse(args), { toolUse, toolUseBlock: toolUse, signal: context.signal });
      } catch (error) {
        if (error instanceof ToolError) throw new ToolCallError(error.message);
        throw error;
      }
    },
    close: tool.close,
  };
}

const LS_SCHEMA = {
  type: 'object',
  properties: { path: { type: 'string', description: 'Directory to list; defaults to the working directory.' } },
} as const;
const LS_LIMIT = 500;

function lsTool(workdir: string): RuntimeTool {
  const validate = inputValidator('LS', LS_SCHEMA);
  return {
    ...builtinTool('LS'),
    definition: { name: 'LS', description: 'List a directory (directories end with `/`).', input_schema: LS_SCHEMA },
    summarizeInput: (input) => field(input, 'path') ?? '.',
    run: async (input) => {
      const { path: dir } = validate(input) as { path?: string };
      const abs = await confined(workdir, dir ?? '.');
      let entries;
      try {
        entries = await readdir(abs, { withFileTypes: true });
      } catch (error) {
        throw new ToolCallError(`LS: cannot list ${dir ?? '.'}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
      const shown = names.slice(0, LS_LIMIT);
      if (names.length > LS_LIMIT) shown.push(`… and ${names.length - LS_LIMIT} more`);
      return shown.length ? shown.join('\n') : '(empty directory)';
    },
  };
}

const MULTI_EDIT_SCHEMA = {
  type: 'object',
  properties: {
    file_path: { type: 'string' },
    edits: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          old_string: { type: 'string' },
          new_string: { type: 'string' },
          replace_all: { type: 'boolean' },
        },
        required: ['old_string', 'new_string'],
      },
    },
  },
  required: ['file_path', 'edits'],
} as const;
/** Same cap as the SDK's Edit: the whole file is held in memory. */
const MULTI_EDIT_MAX_BYTES = 256 * 1024;

interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Applies edits in order to `text`; all or nothing. */
export function applyEdits(text: string, edits: EditSpec[], filePath: string): string {
  let result = text;
  edits.forEach((edit, i) => {
    if (!edit.old_string) throw new ToolCallError(`MultiEdit: edit ${i + 1}: old_string is empty`);
    const count = result.split(edit.old_string).length - 1;
    if (count === 0) throw new ToolCallError(`MultiEdit: edit ${i + 1}: old_string not found in ${filePath}; no edit was applied`);
    if (count > 1 && !edit.replace_all) {
      throw new ToolCallError(`MultiEdit: edit ${i + 1}: old_string appears ${count} times in ${filePath} (must be unique, or set replace_all); no edit was applied`);
    }
    result = edit.replace_all ? result.split(edit.old_string).join(edit.new_string) : result.replace(edit.old_string, () => edit.new_string);
  });
  return result;
}

function multiEditTool(workdir: string): RuntimeTool {
  const validate = inputValidator('MultiEdit', MULTI_EDIT_SCHEMA);
  return {
    ...builtinTool('MultiEdit'),
    definition: {
      name: 'MultiEdit',
      description: 'Make several exact-string replacements in one file, in order, atomically: either every edit applies or none does.',
      input_schema: MULTI_EDIT_SCHEMA as never,
    },
    protectedTarget: protectedWrite(workdir),
    approvalPreview: filePreview(workdir, multiEditChange),
    summarizeInput: (input) => field(input, 'file_path') ?? '',
    run: async (input) => {
      const { file_path, edits } = validate(input) as { file_path: string; edits: EditSpec[] };
      const abs = await confined(workdir, file_path);
      const info = await stat(abs).catch(() => null);
      if (!info?.isFile()) throw new ToolCallError(`MultiEdit: ${file_path} is not an existing regular file`);
      if (info.size > MULTI_EDIT_MAX_BYTES) throw new ToolCallError(`MultiEdit: ${file_path} is ${info.size} bytes, over the ${MULTI_EDIT_MAX_BYTES}-byte limit`);
      const updated = applyEdits(await readFile(abs, 'utf8'), edits, file_path);
      await atomicWriteFile(abs, updated);
      return `applied ${edits.length} edit(s) to ${file_path}`;
    },
  };
}

async function confined(workdir: string, p: string): Promise<string> {
  try {
    return await resolvePath({ workdir }, p);
  } catch (error) {
    throw new ToolCallError(error instanceof Error ? error.message : String(error));
  }
}

/** The file and shell tools for one agent, confined to `workdir`. */
export function createFileTools(workdir: string): RuntimeTool[] {
  const root = path.resolve(workdir);
  const sdkTools = betaAgentToolset20260401({ workdir: root });
  const wrapped = sdkTools.map((tool) => fromSdk(tool, tool.name as SdkName, root));
  return [...wrapped, lsTool(root), multiEditTool(root)];
}
