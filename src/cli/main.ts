// The `subagents` command: the headless surface over the same core as the
// extension, for terminals and CI.
import { COMMANDS } from './commands';
import { isSettingsFileError, isUsageError, type CliIO } from './command';
import { processOutput } from './processOutput';
import { terminalLine } from './render/terminalText';

const SETTINGS_HELP = `Settings: the VS Code extension's subagents.* settings, the same keys without
the prefix, as one JSON object (comments allowed), e.g.
  { "modelAliases": { "sonnet": "claude-sonnet-4-5" }, "maxTurns": 40, "disabledAgents": ["deployer"] }
from two files:
  user     $XDG_CONFIG_HOME/subagents/settings.json (default ~/.config/subagents/settings.json)
  project  .subagents/settings.json in the working folder or its nearest ancestor with one
Precedence: flags > environment (ANTHROPIC_BASE_URL) > project file > user file > defaults.
history.* follows the user file alone (one history serves every project).
Project trust: a folder's own code (its .claude/settings.json hooks) runs, and its
project file applies in full, only if you trust the folder. Untrusted, its hooks are
skipped and its project file can only narrow your limits and switches; it cannot set
apiBaseUrl, permissionMode, pluginDirs or loadClaudePlugins (ignored with a warning).
To trust a folder: answer yes when "subagents run" asks on a terminal ("Do you trust
the files in this folder?"; remembered), list it in "trustedProjects" in your user
file, or pass --trust-project for one command. A project file cannot trust itself.
A bad key or value is skipped with a warning; a file that is not valid JSON stops
the command (exit 2).`;

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 4);
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: subagents <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "subagents <command> --help" for a command's options.\n\n${SETTINGS_HELP}\n`;
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name ? 0 : 2;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`subagents: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    // util.parseArgs reports unknown or malformed flags with ERR_PARSE_ARGS_* codes.
    const parseError = String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');
    if (isUsageError(error) || parseError) {
      io.stderr.write(`subagents ${name}: ${(error as Error).message}\n\n${command.usage}\n`);
      return 2;
    }
    if (isSettingsFileError(error)) {
      io.stderr.write(`subagents ${name}: ${terminalLine((error as Error).message)}\n`);
      return 2;
    }
    throw error;
  }
}

/**
 * A command always ends with its answer or an error. Should it ever wait on
 * something that cannot keep the process alive (a timer that does not hold
 * it, a promise nothing will settle), Node would exit 0 with nothing said;
 * instead, this says so on stderr and exits 1.
 */
export function endsWithAnAnswer<T>(command: Promise<T>, stderr: { write(text: string): unknown }, name: string): Promise<T> {
  let settled = false;
  const unfinished = () => {
    if (settled) return;
    stderr.write(`subagents${name ? ` ${name}` : ''}: stopped before it finished: it was left waiting on nothing that could still happen (a fault in subagents; please report it). What it did so far is in the run history ("subagents runs").\n`);
    process.exitCode = 1;
  };
  process.once('beforeExit', unfinished);
  const done = () => {
    settled = true;
    process.off('beforeExit', unfinished);
  };
  command.then(done, done);
  return command;
}

/** Runs the CLI in this process: what `dist/cli.js` (through bin.ts) and a direct `node main.ts` do. */
export function main(): void {
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => controller.abort(new Error(`received ${signal}`)));
  }
  const stderr = processOutput(2, () => process.stderr);
  const io: CliIO = {
    stdout: processOutput(1, () => process.stdout),
    stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    self: process.argv[1] ? [process.execPath, ...process.execArgv, process.argv[1]] : undefined,
  };
  const argv = process.argv.slice(2);
  endsWithAnAnswer(runCli(argv, io), stderr, argv[0] ?? '').then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      stderr.write(`subagents: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) main();
