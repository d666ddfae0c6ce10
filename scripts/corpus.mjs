// Where the real-world agent files live that the `corpus` test phase checks
// the product against: other people's files, so never inside the repository.
// A checkout with such a folder beside it (`corpus/claude-code-agents` in a
// `shared` folder next to the clone, as CI lays it out), or the folder named
// by SUBAGENTS_CORPUS_DIR, gets the phase; any other checkout says it was
// not run. Plain ESM that runs on Node 20.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export function corpusDir(env = process.env) {
  return env.SUBAGENTS_CORPUS_DIR ? path.resolve(env.SUBAGENTS_CORPUS_DIR) : path.join(root, '..', 'shared', 'corpus', 'claude-code-agents');
}

/** Null when the corpus is there (a folder holding `.md` files); otherwise why the phase cannot run. */
export function corpusMissing(env = process.env) {
  const dir = corpusDir(env);
  if (!existsSync(dir)) return `no real-world agent files at ${dir} (set SUBAGENTS_CORPUS_DIR to a folder of them)`;
  if (!readdirSync(dir).some((f) => f.endsWith('.md'))) return `${dir} holds no .md agent files`;
  return null;
}
