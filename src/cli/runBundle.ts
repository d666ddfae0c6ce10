/**
 * `subagents run` as far as the agent host, and `subagents runs`, as one
 * lazily loaded unit (its own bundle, dist/cli-run.cjs): where a host runs, a
 * run is its client, and this bundle (with the protocol and the host client)
 * and the discovery core it takes from dist/cli-agents.cjs are all it loads;
 * it loads the engine bundle only to run in its own process. `runs` reads
 * the history's index (and a run's file when asked for one), never the engine.
 */
export { runCommand } from './commands/run';
export { runsCommand } from './commands/runs';
