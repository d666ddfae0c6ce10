import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Every relative link in the project's Markdown (README, CONTRIBUTING, the
// changelog, docs/, bench/README.md) reaches a file that exists, and a
// `#section` link a heading of that file, as GitHub names its anchors.

const root = path.join(import.meta.dirname, '../..');

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? docs(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md', ...docs('docs')].filter((f) => existsSync(path.join(root, f)));
}

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
}

/** GitHub's anchors for a file's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!.replace(/<[^>]+>/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

test('relative links in the Markdown reach existing files and headings', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [where, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = where ? path.join(root, path.dirname(file), where) : path.join(root, file);
      if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

/** Every file of the repository's own folders, as `/`-separated paths from the root. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
      else files.push(`${dir}/${e.name}`);
    }
  };
  for (const dir of ['src', 'test', 'scripts', 'bench', 'webview-ui']) walk(dir);
  for (const e of readdirSync(root, { withFileTypes: true })) if (e.isFile()) files.push(e.name);
  return files;
}

/** The text without the cells of a table column headed `was` (a rename table's old names, which are gone on purpose). */
function withoutOldNames(text: string): string {
  let was = -1;
  return text
    .split('\n')
    .map((line) => {
      if (!line.startsWith('|')) {
        was = -1;
        return line;
      }
      const cells = line.split('|');
      const header = cells.findIndex((c) => c.trim().toLowerCase() === 'was');
      if (was < 0 && header >= 0) was = header;
      return was >= 0 ? cells.map((c, i) => (i === was ? '' : c)).join('|') : line;
    })
    .join('\n');
}

test('the source files the Markdown names exist (a path from the root, or the end of one: `chat/chatLog.ts`, `chatLog.ts`)', () => {
  const files = sourceFiles();
  const missing: string[] = [];
  for (const file of markdownFiles()) {
    for (const [, token] of withoutOldNames(readFileSync(path.join(root, file), 'utf8')).matchAll(/`([\w./-]+\.(?:ts|mjs|mts))`/g)) {
      if (token!.startsWith('dist/')) continue;
      if (!files.some((f) => f === token || f.endsWith(`/${token}`))) missing.push(`${file}: ${token}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('anchors are made as GitHub makes them', () => {
  assert.deepEqual([...anchors("# A b\n## What acceptEdits still asks\n### An agent file's permission mode\n## The `subagents` CLI\n## A b\n```\n# not a heading\n```\n")], [
    'a-b',
    'what-acceptedits-still-asks',
    'an-agent-files-permission-mode',
    'the-subagents-cli',
    'a-b-1',
  ]);
});
