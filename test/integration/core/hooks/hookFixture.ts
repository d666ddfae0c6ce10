import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CommandHooks, type CommandHooksOptions } from '../../../../src/core/hooks/commandHooks';
import type { AgentArchive } from '../../../../src/core/engine/tree/archive';
import { trustWhen, type ProjectTrust } from '../../../../src/core/trust/projectTrust';
import { until } from '../../../support/until';

/**
 * A temp world for hook tests: a home with `~/.claude`, a project with
 * `.claude`, a dir for hook scripts and what they record, and the
 * CommandHooks under test with its log captured.
 */
export interface HookWorld {
  root: string;
  home: string;
  project: string;
  /** Where scripts write what they saw. */
  out: string;
  logs: Array<{ level: string; message: string }>;
  hooks: CommandHooks;
  /** The project trust to give the engine (default: every folder trusted). */
  trust: ProjectTrust;
  /** The engine's log for the harness: what hooks report per agent reaches it (redacted), so it records into `logs` too. */
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** CommandHooks for a session that starts now: the settings files as they are now are its baseline. */
  session(): Promise<CommandHooks>;
  warnings(): string[];
  /** Writes an executable `/bin/sh` script and returns a command that runs it. */
  script(name: string, body: string): Promise<string>;
  userSettings(hooks: Record<string, unknown>): Promise<string>;
  projectSettings(hooks: Record<string, unknown>, file?: 'settings.json' | 'settings.local.json'): Promise<string>;
  read(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function hookWorld(options: Partial<CommandHooksOptions> & { trust?: ProjectTrust } = {}): Promise<HookWorld> {
  const { trust = trustWhen(() => true), ...hookOptions } = options;
  const root = await mkdtemp(path.join(os.tmpdir(), 'subagents-hooks-'));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  const out = path.join(root, 'out');
  const scripts = path.join(root, 'scripts');
  await Promise.all([home, project, out, scripts].map((d) => mkdir(d, { recursive: true })));
  const logs: HookWorld['logs'] = [];
  const make = () => new CommandHooks({ home, enabled: () => true, log: (level, message) => logs.push({ level, message }), ...hookOptions });
  const hooks = make();
  const writeSettings = async (dir: string, file: string, value: Record<string, unknown>) => {
    await mkdir(path.join(dir, '.claude'), { recursive: true });
    const full = path.join(dir, '.claude', file);
    await writeFile(full, JSON.stringify({ hooks: value }, null, 2));
    return full;
  };
  return {
    root,
    home,
    project,
    out,
    logs,
    hooks,
    trust,
    log: (level, message) => logs.push({ level, message }),
    session: async () => {
      await predateNow([path.join(home, '.claude'), path.join(project, '.claude')]);
      return make();
    },
    warnings: () => logs.filter((l) => l.level === 'warn').map((l) => l.message),
    script: async (name, body) => {
      const file = path.join(scripts, name);
      await writeFile(file, `#!/bin/sh\n${body}\n`);
      await chmod(file, 0o755);
      return `'${file}'`;
    },
    userSettings: (value) => writeSettings(home, 'settings.json', value),
    projectSettings: (value, file = 'settings.json') => writeSettings(project, file, value),
    read: (name) => readFile(path.join(out, name), 'utf8'),
    close: () => rm(root, { recursive: true, force: true }),
  };
}

/** One matcher group of command hooks, in Claude Code's settings shape. */
export function group(commands: Array<string | { command: string; timeout?: number }>, matcher?: string): Record<string, unknown> {
  return {
    ...(matcher !== undefined ? { matcher } : {}),
    hooks: commands.map((c) => (typeof c === 'string' ? { type: 'command', command: c } : { type: 'command', ...c })),
  };
}

/** An archive that only knows where transcripts would be: enough for the hooks' transcript paths. */
export function pathOnlyArchive(dir: string): AgentArchive {
  return {
    appendTranscript: async () => undefined,
    transcriptPath: (agentId) => path.join(dir, 'transcripts', `${agentId}.jsonl`),
    load: async () => null,
    begin: async () => undefined,
    retentionDays: 30,
  };
}

/** Text blocks of a request's first user message. */
export function firstUserTexts(messages: Array<{ role: string; content: unknown }>): string[] {
  const first = messages[0];
  if (!first || !Array.isArray(first.content)) return [];
  return (first.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The margin the hooks allow for coarse file times (CLOCK_MARGIN_MS in hookSettingsFiles.ts), and a little more. */
const FILE_TIME_MARGIN_MS = 60;

/**
 * Waits until every file in `dirs` (or each file named) was last changed
 * before "now" by more than the hooks' margin: a session started from then
 * on takes them as its baseline. Waits on the clock passing the files' own
 * times, however long a busy machine took to write them.
 */
export async function predateNow(paths: readonly string[]): Promise<void> {
  const times: number[] = [];
  for (const p of paths) {
    const info = await stat(p).catch(() => null);
    if (!info) continue;
    const files = info.isDirectory() ? (await readdir(p)).map((name) => path.join(p, name)) : [p];
    for (const file of files) {
      const s = await stat(file).catch(() => null);
      if (s) times.push(s.mtimeMs, s.ctimeMs);
    }
  }
  const newest = Math.max(0, ...times);
  await until('the settings files to predate the session', () => Date.now() > newest + FILE_TIME_MARGIN_MS);
}
