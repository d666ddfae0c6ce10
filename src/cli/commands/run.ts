import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgentCatalog } from '../../core/agents/catalog';
import { defaultSettings, PERMISSION_MODES, type Settings } from '../../core/config';
import type { AgentResult } from '../../core/engine/agentRun';
import { createClient } from '../../core/engine/client';
import { Engine } from '../../core/engine/engine';
import { EngineError } from '../../core/engine/errors';
import { RunStore } from '../../core/runs/runStore';
import { PermissionGate, type PermissionMode } from '../../core/tools/permissions';
import { terminalApprovals } from '../approvals';
import { UsageError, type CliCommand, type CliIO } from '../command';
import { LiveTreeRenderer, LogRenderer, type Renderer } from '../render/live';
import { formatDuration, formatUsage, styleFor } from '../render/tree';

const USAGE = `Usage: subagents run <agent> <prompt…> [options]

Runs an agent on a task in a directory, with a live tree of what it and the
agents it spawns are doing. The final answer goes to stdout, the tree to stderr.

Options:
  --cwd DIR                 working directory (default: the current one)
  --model M                 model alias or id for the agent
  --plugin-dir DIR          extra plugin root (repeatable)
  --permission-mode MODE    default | acceptEdits | bypassPermissions | plan
                            (default: ask in the terminal; deny when not interactive)
  --budget-tokens N         stop the whole tree after N tokens
  --budget-usd X            stop the whole tree after $X
  --max-depth N             how deep agents may nest (default 3)
  --max-concurrency N       spawned agents running at once (default 4)
  --json                    NDJSON events on stdout; the last line is the result
Exit code: 0 when the run completed, 1 otherwise, 2 for bad arguments.
Environment: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL (optional).`;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} needs a whole number, got "${value}"`);
  return n;
}

function parseRunArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      cwd: { type: 'string' },
      model: { type: 'string' },
      'plugin-dir': { type: 'string', multiple: true },
      'permission-mode': { type: 'string' },
      'budget-tokens': { type: 'string' },
      'budget-usd': { type: 'string' },
      'max-depth': { type: 'string' },
      'max-concurrency': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [agent, ...promptParts] = positionals;
  const prompt = promptParts.join(' ').trim();
  if (!agent) throw new UsageError('missing <agent>');
  if (!prompt) throw new UsageError('missing <prompt>');
  const mode = values['permission-mode'];
  if (mode !== undefined && ![...PERMISSION_MODES, 'plan'].includes(mode)) throw new UsageError(`unknown permission mode "${mode}"`);
  const usd = values['budget-usd'] === undefined ? undefined : Number(values['budget-usd']);
  if (usd !== undefined && !(usd >= 0)) throw new UsageError(`--budget-usd needs a number, got "${values['budget-usd']}"`);
  return {
    agent,
    prompt,
    json: values.json ?? false,
    cwd: values.cwd,
    model: values.model,
    pluginDirs: values['plugin-dir'] ?? [],
    permissionMode: mode as PermissionMode | undefined,
    budget: { maxTokens: positiveInt(values['budget-tokens'], '--budget-tokens'), maxCostUsd: usd },
    maxDepth: positiveInt(values['max-depth'], '--max-depth'),
    maxConcurrency: positiveInt(values['max-concurrency'], '--max-concurrency'),
  };
}

/** The line `--json` ends with. */
export function resultLine(result: AgentResult): string {
  return JSON.stringify({
    type: 'result',
    status: result.status,
    agentId: result.agentId,
    runId: result.runId,
    output: result.structuredOutput ?? result.output,
    error: result.error,
    usage: result.usage,
    turns: result.turns,
    durationMs: result.durationMs,
    worktree: result.worktree,
  });
}

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run an agent with a live tree (or NDJSON events with --json)',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const opts = parseRunArgs(args);
    const cwd = path.resolve(io.cwd, opts.cwd ?? '.');
    if (!(await stat(cwd).catch(() => null))?.isDirectory()) {
      io.stderr.write(`subagents run: --cwd ${cwd} is not a directory\n`);
      return 1;
    }
    let client;
    try {
      client = createClient({ apiKey: io.env.ANTHROPIC_API_KEY, env: io.env });
    } catch (error) {
      io.stderr.write(`subagents run: ${(error as Error).message}\n`);
      return 1;
    }
    const settings: Settings = {
      ...defaultSettings(),
      ...(opts.maxDepth ? { maxDepth: opts.maxDepth } : {}),
      ...(opts.maxConcurrency ? { maxConcurrency: opts.maxConcurrency } : {}),
    };
    const catalog = await AgentCatalog.create({ cwd, home: io.env.HOME, pluginDirs: opts.pluginDirs, watch: true });
    try {
      const store = new RunStore({ coalesceMs: opts.json ? 0 : 80 });
      const style = styleFor(io.stderr as { isTTY?: boolean }, io.env);
      let runId: string | null = null;
      const interactive = !opts.json && Boolean((process.stdin as { isTTY?: boolean }).isTTY) && Boolean((io.stderr as { isTTY?: boolean }).isTTY);
      const renderer: Renderer | null = opts.json
        ? null
        : interactive
          ? new LiveTreeRenderer(io.stderr as NodeJS.WriteStream, store, () => runId, style)
          : new LogRenderer(io.stderr, store, () => runId, style);
      const gate = new PermissionGate(
        interactive ? terminalApprovals(process.stdin, process.stderr, renderer instanceof LiveTreeRenderer ? renderer : undefined) : null,
      );
      const engine = new Engine({ client, catalog, settings: () => settings, gate });
      engine.onEvent((event) => {
        store.apply(event);
        if (opts.json) io.stdout.write(`${JSON.stringify(event)}\n`);
        renderer?.event(event);
      });

      let run;
      try {
        run = engine.start({ agent: opts.agent, prompt: opts.prompt, cwd, model: opts.model, budget: opts.budget, permissionMode: opts.permissionMode });
      } catch (error) {
        renderer?.stop();
        if (error instanceof EngineError) {
          io.stderr.write(`subagents run: ${error.message}\n`);
          return 1;
        }
        throw error;
      }
      runId = run.id;
      const onAbort = () => engine.cancel(run.id, 'Interrupted from the terminal.');
      io.signal.addEventListener('abort', onAbort, { once: true });
      const result = await run.done;
      io.signal.removeEventListener('abort', onAbort);
      renderer?.stop();

      if (opts.json) {
        io.stdout.write(`${resultLine(result)}\n`);
      } else {
        const output = result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput, null, 2) : result.output;
        if (output) io.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
        const total = store.get(result.runId)?.usage ?? result.usage;
        const summary = `${result.status} · ${formatDuration(result.durationMs)} · ${formatUsage(total)}${result.error ? ` · ${result.error}` : ''}`;
        io.stderr.write(`${result.status === 'completed' ? style.green(summary) : style.red(summary)}\n`);
      }
      return result.status === 'completed' ? 0 : 1;
    } finally {
      catalog.dispose();
    }
  },
};
