import type { CliCommand } from './command';

/**
 * Every `subagents` command, in the order `--help` lists them. Each is
 * loaded only when it runs: `agents` must not pay for the SDK, the engine
 * and the renderers that `run` needs (start-up time is most of a short
 * command's time; see bench/cli.ts), nor `run` through the agent host for
 * the engine the host runs. The build gives `./agentsBundle` (`agents`),
 * `./runBundle` (`run` up to the host, and `runs`) and `./engineCommands` bundles of
 * their own (scripts/build.mjs).
 */
export interface CommandEntry {
  name: string;
  /** One line for `subagents --help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'agents', summary: 'list the discovered agents and problems in agent files', load: async () => (await import('./agentsBundle')).agentsCommand },
  { name: 'run', summary: 'run an agent with a live tree (or NDJSON events with --json)', load: async () => (await import('./runBundle')).runCommand },
  { name: 'runs', summary: 'list the run history (or show one run’s tree)', load: async () => (await import('./runBundle')).runsCommand },
  { name: 'resume', summary: 'send a follow-up to an agent that ended, with its full conversation', load: async () => (await import('./engineCommands')).resumeCommand },
  { name: 'send', summary: 'send a message to an agent: at work (read at its next turn), or ended (continued)', load: async () => (await import('./engineCommands')).sendCommand },
  { name: 'stop', summary: 'stop one agent at work (--all: its whole run)', load: async () => (await import('./engineCommands')).stopCommand },
  { name: 'approvals', summary: 'list the approvals agents in the agent host wait for, and allow or deny one', load: async () => (await import('./engineCommands')).approvalsCommand },
  { name: 'worktrees', summary: 'list, review, apply or discard the worktrees of isolated agents', load: async () => (await import('./engineCommands')).worktreesCommand },
  { name: 'host', summary: 'start, stop or show the agent host that runs agents for VS Code and the CLI', load: async () => (await import('./engineCommands')).hostCommand },
];
