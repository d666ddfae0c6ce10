import type { CliCommand } from './command';
import { agentsCommand } from './commands/agents';
import { runCommand } from './commands/run';

/** Every `subagents` command, in the order `--help` lists them. */
export const COMMANDS: CliCommand[] = [agentsCommand, runCommand];
