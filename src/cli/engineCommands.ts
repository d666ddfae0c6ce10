/** The commands that run agents or read their history: one lazily loaded unit (its own bundle, dist/cli-engine.cjs). */
export { resumeCommand } from './commands/resume';
export { runCommand } from './commands/run';
export { runsCommand } from './commands/runs';
export { sendCommand } from './commands/send';
export { stopCommand } from './commands/stop';
export { worktreesCommand } from './commands/worktrees';
