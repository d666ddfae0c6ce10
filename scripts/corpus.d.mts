// Types for scripts/corpus.mjs, so the TypeScript tests can import it.
export function corpusDir(env?: NodeJS.ProcessEnv): string;
export function corpusMissing(env?: NodeJS.ProcessEnv): string | null;
