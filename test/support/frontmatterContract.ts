import assert from 'node:assert/strict';
import { parse as parseYaml12 } from 'yaml';
import matter from 'gray-matter';
import { parseWithYamlEngine, parseYamlFrontmatter, splitFrontmatter } from '../../src/core/agents/parsing/frontmatter';
import { parseYamlFastPath, type NestedColonError } from '../../src/core/agents/parsing/yamlFastPath';

// The contract of the fast path for simple frontmatter: exactly what the YAML
// parser gives for every input it accepts, and undefined for everything else.
// Checked differentially against js-yaml as gray-matter runs it, by the unit
// tests (generated input, the bundled agents) and the corpus phase (real files).

const yamlEngine = (matter as unknown as { engines: { yaml: { parse(text: string): unknown } } }).engines.yaml;
const FAILED = Symbol('YAML error');

function yaml(frontmatter: string): unknown {
  try {
    return yamlEngine.parse(frontmatter);
  } catch {
    return FAILED;
  }
}

/** Asserts the contract for one input; returns whether the fast path took it. */
export function checkFastPath(frontmatter: string): boolean {
  const problem: { error?: NestedColonError } = {};
  const plain = parseYamlFastPath(frontmatter, problem);
  const fast = parseYamlFrontmatter(frontmatter);
  const engine = parseWithYamlEngine(frontmatter);
  if (problem.error) {
    // Declared invalid without the YAML parser: the parser must reject it too (in its own words).
    assert.equal(fast.ok, false, JSON.stringify(frontmatter));
    assert.equal(engine.ok, false, `fast path declared valid YAML invalid: ${JSON.stringify(frontmatter)}`);
    return false;
  }
  // Whatever the path, the result is the YAML parser's.
  assert.deepStrictEqual(fast, engine, JSON.stringify(frontmatter));
  if (plain === undefined) return false;
  const expected = yaml(frontmatter);
  assert.notEqual(expected, FAILED, `fast path accepted input YAML rejects: ${JSON.stringify(frontmatter)}`);
  assert.deepStrictEqual(plain, expected ?? {}, JSON.stringify(frontmatter));
  return true;
}

export function frontmatterOf(text: string): string | null {
  const split = splitFrontmatter(text);
  return split.kind === 'ok' ? split.frontmatter : null;
}

const FAILED_12 = Symbol('YAML 1.2 error');

/**
 * The same contract against the `yaml` package (YAML 1.2, what Roo Code and
 * Kilo Code parse modes files with), for the modes files that take the fast
 * path: for every input it accepts, exactly what `yaml` gives.
 */
export function checkFastPathAgainstYaml12(text: string): boolean {
  const plain = parseYamlFastPath(text);
  if (plain === undefined) return false;
  let expected: unknown;
  try {
    expected = parseYaml12(text, { maxAliasCount: 100 });
  } catch {
    expected = FAILED_12;
  }
  assert.notEqual(expected, FAILED_12, `fast path accepted input the yaml package rejects: ${JSON.stringify(text)}`);
  assert.deepStrictEqual(plain, expected ?? {}, JSON.stringify(text));
  return true;
}
