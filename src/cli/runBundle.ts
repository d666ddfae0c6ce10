/**
 * `subagents run` as far as the agent host, as one lazily loaded unit (its
 * own bundle, dist/cli-run.cjs): where a host runs, a run is its client, and
 * this bundle (with the protocol and the host client) and the discovery core
 * it takes from dist/cli-agents.cjs are all it loads; it loads the engine
 * bundle only to run in its own process.
 */
export { runCommand } from './commands/run';
