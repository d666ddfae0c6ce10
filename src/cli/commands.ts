import type { CliCommand } from './command';
import { agentsCommand } from './commands/agents';
import { resumeCommand } from './commands/resume';
import { runCommand } from './commands/run';
import { runsCommand } from './commands/runs';
import { worktreesCommand } from './commands/worktrees';

/** Every `subagents` command, in the order `--help` lists them. */
export const COMMANDS: CliCommand[] = [agentsCommand, runCommand, runsCommand, resumeCommand, worktreesCommand];
