/**
 * The environment for every child process the product starts (git, hooks,
 * the shell tool): ours without the `ANTHROPIC_*` variables, so the API key
 * never reaches a child process.
 */
export function childEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.toUpperCase().startsWith('ANTHROPIC_')) env[key] = value;
  return env;
}
