import type { CliCommand } from './command';

/** Every `subagents` command, in the order `--help` lists them. */
export const COMMANDS: CliCommand[] = [];
