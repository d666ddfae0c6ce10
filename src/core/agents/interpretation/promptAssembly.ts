import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { AgentDefinition, PromptInclude } from '../definition';
import { ROO_INSTRUCTIONS_HEADING } from '../readers/roo';

/**
 * The system prompt an agent is sent, put together when it starts (not
 * when its file is read: a file it includes may change without its own
 * file changing). Most formats send the file's body as it is; three put
 * other files in, as their home tools do:
 * - opencode and Kilo fill in `{file:path}` with the file's text and
 *   `{env:VAR}` with the variable's value;
 * - Kiro reads a `prompt: file://…` file, and adds its `resources` files;
 * - Roo Code adds the mode's rules (`.roo/rules-<slug>/`, `.roorules-<slug>`).
 * A project's file may bring in only the project's own files and no
 * environment variable until the folder is trusted (the same trust its MCP
 * servers and hooks wait for): an agent file of a cloned repository must not
 * send `~/.ssh/id_rsa` or `$AWS_SECRET_ACCESS_KEY` to the model.
 */

export interface PromptContext {
  /** The agent's working folder: relative paths are read from it. */
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Whether a project folder's own files may bring in what lies outside it, or the environment. */
  trusted: (folder: string) => boolean;
}

export interface AssembledPrompt {
  text: string;
  /** Why something was left out (a missing file, an untrusted folder), for the log and the resolved view. */
  warnings: string[];
  /** The files read into it. */
  files: string[];
}

/** No single included file brings more than this into a prompt. */
const MAX_FILE_CHARS = 100_000;
/** Roo Code leaves these out of a rules folder. */
const NOT_RULES = /(\.(DS_Store|bak|cache|crdownload|db|dmp|dump|eslintcache|lock|log|old|part|partial|pyc|pyo|stackdump|swo|swp|temp|tmp)$)|^Thumbs\.db$/;

function expand(written: string, ctx: PromptContext): string {
  if (written.startsWith('~/')) return path.join(ctx.home, written.slice(2));
  return path.resolve(ctx.cwd, written);
}

function inside(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

class Assembly {
  readonly warnings: string[] = [];
  readonly files: string[] = [];
  /** Whether a project file's reach beyond its folder (and into the environment) is allowed. */
  readonly open: boolean;

  constructor(
    readonly definition: AgentDefinition,
    readonly ctx: PromptContext,
  ) {
    this.open = definition.source !== 'project' || ctx.trusted(ctx.cwd);
  }

  /** A file's text, or null (and why) when it may not or cannot be read. */
  async read(file: string, written: string, required: boolean): Promise<string | null> {
    if (!this.open && !inside(file, this.ctx.cwd)) {
      this.warnings.push(`${written} is outside the project and the folder is not trusted: it is not read into the prompt`);
      return null;
    }
    try {
      let text = await readFile(file, 'utf8');
      if (text.length > MAX_FILE_CHARS) text = `${text.slice(0, MAX_FILE_CHARS)}\n[… cut at ${MAX_FILE_CHARS} characters]`;
      this.files.push(file);
      return text;
    } catch (error) {
      if (required) this.warnings.push(`${written} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      return null;
    }
  }

  /** opencode's `{file:…}` and `{env:…}`. */
  async substitute(text: string): Promise<string> {
    if (!text.includes('{file:') && !text.includes('{env:')) return text;
    let out = text.replace(/\{env:([^}]+)\}/g, (whole, name: string) => {
      if (!this.open) {
        this.warnings.push(`{env:${name}} is not filled in: the project folder is not trusted`);
        return whole;
      }
      return this.ctx.env[name.trim()] ?? '';
    });
    for (const match of [...out.matchAll(/\{file:([^}]+)\}/g)]) {
      const written = match[1]!.trim();
      const content = await this.read(expand(written, this.ctx), `{file:${written}}`, true);
      if (content !== null) out = out.replace(match[0], () => content.trim());
    }
    return out;
  }

  /** Every existing file a path or glob names. */
  async matching(written: string): Promise<string[]> {
    const absolute = expand(written, this.ctx);
    if (!/[*?[{]/.test(absolute)) return [absolute];
    const base = absolute.slice(0, absolute.search(/[*?[{]/)).replace(/[^/\\]*$/, '');
    const isMatch = picomatch(absolute.split(path.sep).join('/'), { dot: false });
    const found: string[] = [];
    const walk = async (dir: string, depth: number): Promise<void> => {
      if (depth > 8 || found.length >= 200) return;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full, depth + 1);
        else if (entry.isFile() && isMatch(full.split(path.sep).join('/'))) found.push(full);
      }
    };
    await walk(base || this.ctx.cwd, 0);
    return found;
  }

  /** Roo Code's mode rules: every `rules-<slug>` folder there is, else the first legacy file. */
  async rules(include: PromptInclude): Promise<string[]> {
    const sections: string[] = [];
    const folders = include.paths.filter((p) => !path.basename(p).startsWith('.roorules') && !path.basename(p).startsWith('.clinerules'));
    for (const written of folders) {
      const folder = expand(written, this.ctx);
      let names: string[];
      try {
        if (!(await stat(folder)).isDirectory()) continue;
        names = (await readdir(folder, { recursive: true })).map(String);
      } catch {
        continue;
      }
      names.sort((a, b) => path.basename(a).toLowerCase().localeCompare(path.basename(b).toLowerCase()));
      for (const name of names) {
        const file = path.join(folder, name);
        if (NOT_RULES.test(path.basename(name)) || !(await stat(file).then((s) => s.isFile(), () => false))) continue;
        const text = (await this.read(file, file, false))?.trim();
        if (text) sections.push(`# Rules from ${file}:\n${text}`);
      }
    }
    if (sections.length > 0) return sections;
    for (const written of include.paths.filter((p) => !folders.includes(p))) {
      const text = (await this.read(expand(written, this.ctx), written, false))?.trim();
      if (text) return [`# Rules from ${path.basename(written)}:\n${text}`];
    }
    return [];
  }
}

export async function assemblePrompt(definition: AgentDefinition, ctx: PromptContext): Promise<AssembledPrompt> {
  const assembly = new Assembly(definition, ctx);
  let text = definition.systemPrompt;
  const includes = definition.promptIncludes ?? [];
  for (const include of includes.filter((i) => i.as === 'prompt')) {
    for (const written of include.paths) {
      const content = await assembly.read(expand(written, ctx), include.written, include.required);
      if (content !== null) text = content.trim();
    }
  }
  if (definition.format === 'opencode' || definition.format === 'kilo') text = await assembly.substitute(text);
  const context: string[] = [];
  for (const include of includes.filter((i) => i.as === 'context')) {
    for (const written of include.paths) {
      for (const file of await assembly.matching(written)) {
        const content = await assembly.read(file, include.written, false);
        if (content !== null) context.push(`<context file="${path.relative(ctx.cwd, file) || file}">\n${content.trim()}\n</context>`);
      }
    }
  }
  if (context.length > 0) text = `${text}\n\n${context.join('\n\n')}`.trim();
  const rules: string[] = [];
  for (const include of includes.filter((i) => i.as === 'rules')) rules.push(...(await assembly.rules(include)));
  if (rules.length > 0) {
    // Roo Code's rules close its custom instructions block, which a mode without instructions does not have yet.
    if (!text.includes(ROO_INSTRUCTIONS_HEADING)) text = `${text}\n\n${ROO_INSTRUCTIONS_HEADING}\n`;
    text = `${text}\nRules:\n\n${rules.join('\n\n')}`;
  }
  return { text, warnings: assembly.warnings, files: assembly.files };
}
