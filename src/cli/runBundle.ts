/**
 * `subagents run` as a lazily loaded unit of its own (dist/cli-run.cjs): the
 * command, the host's protocol and client and the terminal renderers, without
 * the engine or the SDK. Where the agent host runs, that is all a run from a
 * terminal loads; the engine bundle (dist/cli-engine.cjs) is loaded only to
 * run in this process (scripts/build.mjs).
 */
export { runCommand } from './commands/run';
