import path from 'node:path';

/**
 * The public agent files the product must load, kept beside the repository in
 * ../shared (never copied in: they are other people's prose). Tests that need
 * them skip, saying so, when a checkout has no ../shared next to it.
 */
export const CORPUS_DIR = path.resolve(import.meta.dirname, '../../../shared/corpus/claude-code-agents');
