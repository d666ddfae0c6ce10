// The `subagents` command: the headless surface over the same core.
const HELP = `Usage: subagents <command> [options]

Commands:
  agents [--json] [--cwd DIR] [--plugin-dir DIR]…   list discovered agents
  run <agent> <prompt> [--json] [--cwd DIR]         run an agent
`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command ? 0 : 2;
  }
  process.stderr.write(`subagents: unknown command "${command}"\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`subagents: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
