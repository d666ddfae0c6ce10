/**
 * `subagents agents` and the agent-discovery core, as one lazily loaded
 * unit (its own bundle, dist/cli-agents.cjs): what a listing loads, and
 * nothing else. The bundles built after it (the `run` command's, the
 * engine's, the extension's…) take every module it holds from it rather
 * than a copy of their own (scripts/build.mjs).
 */
export { agentsCommand } from './commands/agents';
