import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PERMISSION_MODES } from '../../core/config';
import { foreignVendor, resolveModelField } from '../../core/agents/interpretation/modelNames';
import { requestedModel } from '../../core/engine/loop/models';
import { currentBranch } from '../../core/engine/loop/systemPrompt';
import type { PermissionMode } from '../../core/tools/permissions';
import { UsageError, userHome, type CliCommand, type CliIO } from '../command';
import { executeRun, interactiveTerminal, presentation } from '../execute';
import { pluginDirFlags } from '../pluginDirFlags';
import { decideProjectTrust, trustSpec } from '../trust';
import { cliScope } from '../scope';
import { attachToHost, hostMayRun, noHost } from '../hostConnection';
import { RunCatalog } from '../runCatalog';
import type * as EngineCommands from '../engineCommands';
import type { StartRequest } from '../../core/runtime/api';
import type { ScopeSpec } from '../../core/runtime/scopeSpec';
import { cliSettings } from '../settingsFiles';
import { terminalText } from '../render/terminalText';
import { startAgentOrTeam } from '../teamStart';

const USAGE = `Usage: subagents run <agent> <prompt…> [options]
       subagents run <team> <goal…> [options]

Runs an agent on a task in a directory, with a live tree of what it and the
agents it spawns are doing. The final answer goes to stdout, the tree to stderr.
A team (a .subagents/teams/<team>.md file, see "subagents agents") runs its lead
with the team file's brief, its members and the goal; an agent of the same name
wins over a team.

Options:
  --cwd DIR                 working directory (default: the current one)
  --model M                 model alias or id for the agent, read as an agent
                            file's model is (claude-sonnet-4.5 → claude-sonnet-4-5)
  --plugin-dir DIR          extra plugin root (repeatable); a relative DIR is
                            taken from the --cwd folder
  --permission-mode MODE    default | acceptEdits | bypassPermissions | plan
                            (default: ask in the terminal; deny when not interactive)
  --budget-tokens N         stop the whole tree after N tokens (budget.maxTokens)
  --budget-usd X            stop the whole tree after $X (budget.maxCostUsd)
  --max-depth N             how deep agents may nest (maxDepth, default 3)
  --max-concurrency N       spawned agents running at once (maxConcurrency, default 4)
  --max-turns N             model turns per agent without its own maxTurns (maxTurns, default 100)
  --trust-project           trust this folder's files for this command: its
                            .claude/settings.json hooks run, its
                            .subagents/settings.json applies in full and the
                            MCP servers its files declare start. Without it, an
                            untrusted folder's hooks and servers are skipped and
                            its settings can only narrow yours; a terminal run asks
                            once ("Do you trust the files in this folder?") and
                            remembers a yes in trustedProjects
  --isolation worktree      work in a git worktree of its own; changes stay on
                            a branch (see "subagents worktrees")
  --base-ref REF            where that worktree starts: HEAD (with your
                            uncommitted changes) or a branch, tag or commit
                            (worktrees.baseRef, default HEAD)
  --json                    NDJSON events on stdout; the last line is the result
  --no-host                 run in this process even where the agent host runs.
                            Otherwise, with a host running, the run is the host's:
                            VS Code shows it live, and it goes on if this
                            terminal closes (Ctrl+C still stops it); without
                            one (CI), it runs in this process
Exit code: 0 when the run completed, 1 otherwise, 2 for bad arguments.
Environment: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL (optional).
Settings: the extension's subagents.* settings, from ~/.config/subagents/settings.json
($XDG_CONFIG_HOME) and the project's .subagents/settings.json; flags win (see "subagents --help").
History: runs and transcripts are kept under $XDG_DATA_HOME/subagents
(default ~/.local/share/subagents); see "subagents runs" and "subagents resume".`;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} needs a whole number, got "${value}"`);
  return n;
}

/**
 * `--model` read as a definition's `model` is (`claude-sonnet-4.5` → the
 * `claude-sonnet-4-5` the API serves). Another vendor's model is a usage
 * error unless modelAliases maps it: the run would otherwise quietly fall
 * back to another model.
 */
function modelFlag(written: string | undefined, aliases: Readonly<Record<string, string>>, io: CliIO): string | undefined {
  if (written === undefined) return undefined;
  if (!written.trim()) throw new UsageError('--model needs a model alias or id');
  if (Object.hasOwn(aliases, written)) return written;
  const resolved = resolveModelField(written);
  const vendor = resolved?.runs ? null : foreignVendor(written);
  if (vendor) {
    throw new UsageError(`--model ${written} is ${vendor}'s, which an Anthropic endpoint does not serve; give an alias (${Object.keys(aliases).join(', ')}), a claude-… id, or map it in the modelAliases setting`);
  }
  // A Claude name of a version this runtime does not know runs on its family's alias: say so.
  if (resolved?.warning) io.stderr.write(`subagents: warning: --model: ${terminalText(resolved.warning)}\n`);
  return requestedModel(written, aliases) ?? undefined;
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
      'max-turns': { type: 'string' },
      'trust-project': { type: 'boolean', default: false },
      isolation: { type: 'string' },
      'base-ref': { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-host': { type: 'boolean', default: false },
    },
  });
  const [agent, ...promptParts] = positionals;
  const prompt = promptParts.join(' ').trim();
  if (!agent) throw new UsageError('missing <agent>');
  if (!prompt) throw new UsageError('missing <prompt>');
  const mode = values['permission-mode'];
  if (mode !== undefined && ![...PERMISSION_MODES, 'plan'].includes(mode)) throw new UsageError(`unknown permission mode "${mode}"`);
  if (values.isolation !== undefined && values.isolation !== 'worktree') throw new UsageError(`--isolation takes "worktree", got "${values.isolation}"`);
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
    // Settings the flags override (checked by the settings schema in cliSettings).
    flags: {
      'budget.maxTokens': { value: positiveInt(values['budget-tokens'], '--budget-tokens'), flag: '--budget-tokens' },
      'budget.maxCostUsd': { value: usd, flag: '--budget-usd' },
      maxDepth: { value: positiveInt(values['max-depth'], '--max-depth'), flag: '--max-depth' },
      maxConcurrency: { value: positiveInt(values['max-concurrency'], '--max-concurrency'), flag: '--max-concurrency' },
      maxTurns: { value: positiveInt(values['max-turns'], '--max-turns'), flag: '--max-turns' },
    },
    trustProject: values['trust-project'] ?? false,
    isolation: values.isolation as 'worktree' | undefined,
    baseRef: values['base-ref'],
    noHost: values['no-host'] ?? false,
  };
}

/**
 * The engine bundle, loaded as soon as the reads and the git command under
 * way have been asked for: evaluating it is the command's longest stretch of
 * work, and done now it fills the time the trust probes and discovery wait
 * on the disk instead of following them.
 */
function loadEngineSoon(): Promise<typeof EngineCommands> {
  const loading = new Promise<typeof EngineCommands>((resolve, reject) => setImmediate(() => import('../engineCommands').then(resolve, reject)));
  // Then Node's fetch, which the first request needs, while the same reads may still be under way.
  void loading.then((engine) => setImmediate(() => engine.warmUpRequests()));
  // Awaited where the command runs the agent; until then a failure must not count as unhandled.
  loading.catch(() => undefined);
  return loading;
}

export const runCommand: CliCommand = {
  name: 'run',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const opts = parseRunArgs(args);
    const cwd = path.resolve(io.cwd, opts.cwd ?? '.');
    if (!(await stat(cwd).catch(() => null))?.isDirectory()) {
      io.stderr.write(`subagents run: --cwd ${cwd} is not a directory\n`);
      return 1;
    }
    // A run in this process asks git for the branch its agent's prompt names: asked now, git runs while the
    // trust probes, the settings and the engine bundle load, instead of on the way to the first request.
    const prefetchBranch = () => opts.isolation === undefined && void currentBranch(cwd);
    // Known at once when --no-host says so or no host has left its token: then nothing is loaded or asked for a host.
    const inProcess = noHost(io, opts.noHost) || !hostMayRun(io);
    if (inProcess) prefetchBranch();
    const pluginDirs = pluginDirFlags(opts.pluginDirs, cwd, userHome(io.env));
    // In this process the folder's agents are discovered once: for the trust probes, then as the run's catalog.
    const catalog = inProcess ? RunCatalog.start(io, cwd, { trustProject: opts.trustProject, pluginDirs }) : null;
    const engine = inProcess ? loadEngineSoon() : null;
    try {
      const trust = await decideProjectTrust(io, cwd, { flag: opts.trustProject, interactive: interactiveTerminal(io, opts.json), ...(catalog ? { agents: () => catalog.agents() } : {}) });
      const settings = cliSettings(io, cwd, { flags: opts.flags, trust });
      const model = modelFlag(opts.model, settings.modelAliases, io);
      const view = presentation(io, opts.json);
      const request = (scope: ScopeSpec): StartRequest => ({
        scope,
        agent: opts.agent,
        prompt: opts.prompt,
        model,
        permissionMode: opts.permissionMode,
        isolation: opts.isolation,
        baseRef: opts.baseRef,
        askApprovals: view.interactive,
        via: 'cli',
      });
      // Where the agent host runs, the run is its: listed, messaged, stopped and answered from VS Code and other terminals too.
      const host = inProcess ? null : await attachToHost(io, { handlers: view.modeConsent ? { modeConsent: view.modeConsent } : {}, coalesceMs: opts.json ? 0 : 80 });
      if (host) {
        try {
          return await executeRun(io, host, view, () => startAgentOrTeam(io, host, request(cliScope(io, { cwd, settings, trust, pluginDirs })), cwd, settings['teams.isolation']), 'run');
        } finally {
          host.close();
        }
      }
      // No host: the engine runs here, from its own bundle (dist/engine.cjs), loaded already when no host could run (else now):
      // a run through the host never evaluates the SDK.
      if (!inProcess) prefetchBranch();
      const { runInProcess } = await (engine ?? import('../engineCommands'));
      // Plan mode starts no MCP server; an isolated run's servers start in its worktree.
      const firstAgent = opts.permissionMode === 'plan' || opts.isolation ? undefined : opts.agent;
      return await runInProcess(io, view, {
        cwd,
        pluginDirs,
        settings,
        trust: trustSpec(trust),
        json: opts.json,
        firstAgent,
        request,
        teamsIsolation: settings['teams.isolation'],
        catalog: catalog ? (spec) => catalog.take(spec) : undefined,
      });
    } finally {
      // What no scope took (a host ran the agent, or the settings decided after trust read other folders).
      catalog?.dispose();
    }
  },
};
