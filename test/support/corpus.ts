import { readdirSync } from 'node:fs';
import matter from 'gray-matter';
import { corpusDir, corpusMissing } from '../../scripts/corpus.mjs';

/**
 * Real-world agent files the product must load, kept outside the repository
 * (they are other people's prose): see scripts/corpus.mjs for where. Only
 * the `corpus` test phase (test/corpus/) reads them, and `npm test` runs it
 * only when they are there; run alone without them, a corpus test fails
 * saying what is missing rather than passing on nothing.
 */
export const CORPUS_DIR = corpusDir();

/** The corpus's `.md` files, sorted; throws when there is no corpus. */
export function corpusFiles(): string[] {
  const missing = corpusMissing();
  if (missing) throw new Error(`The corpus tests need real-world agent files: ${missing}.`);
  return readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.md')).sort();
}

export interface CorpusExpectation {
  name: string;
  description: string;
  tools: string[] | null;
  model: string | null;
}

/** CSV as Claude Code writes it; the corpus uses only plain names, no patterns. */
function csv(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  return [...new Set(items.map((s) => s.trim()).filter(Boolean))];
}

/**
 * What a corpus file says, computed without the product's parser:
 * gray-matter's own main function for files that are valid YAML; for the
 * rest, the literal text after `key: ` on the key's line, which is what
 * their authors meant.
 */
export function corpusExpectation(text: string): { yamlValid: boolean; fields: CorpusExpectation } {
  try {
    const data = matter(text, {}).data as Record<string, unknown>;
    return {
      yamlValid: true,
      fields: { name: String(data.name).trim(), description: String(data.description).trim(), tools: csv(data.tools), model: (data.model as string | undefined) ?? null },
    };
  } catch {
    const frontmatter = text.split('\n---')[0] ?? '';
    const line = (key: string) => new RegExp(`^${key}: (.*)$`, 'm').exec(frontmatter)?.[1]?.trim();
    return {
      yamlValid: false,
      fields: { name: line('name') ?? '', description: line('description') ?? '', tools: csv(line('tools')), model: line('model') ?? null },
    };
  }
}
