import type { McpVariableSyntax } from '../agents/mcpServers/spec';
import { own } from '../own';

/**
 * Variables in server settings, expanded when the server starts, each
 * format with its home tool's syntax:
 * - claude: `${VAR}`, `${VAR:-default}` (Claude Code's `.mcp.json`), and
 *   `${CLAUDE_PLUGIN_ROOT}` / `${CLAUDE_PROJECT_DIR}`.
 * - copilot: `$VAR`, `${VAR}`, `${VAR:-default}`, `${{ secrets.VAR }}`,
 *   `${{ vars.VAR }}` (also `var.`), from the environment here (GitHub's
 *   cloud agent fills them from the repository's Agents secrets; a local run
 *   has only the environment); and VS Code's `${env:VAR}` and `${input:id}`.
 * - gemini: `$VAR`, `${VAR}`, `${VAR:-default}` (gemini-cli expands with
 *   dotenv-expand).
 * - codex: none; values are literal (Codex passes variables by name:
 *   `env_vars`, `bearer_token_env_var`, `env_http_headers`).
 * - vscode: `${env:VAR}`, `${input:id}`, `${workspaceFolder}`,
 *   `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}`.
 *
 * No `ANTHROPIC_*` variable is ever read: a server must not get the key
 * the agents run with, whatever its settings ask for.
 */

export interface VariableContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The project folder (`${workspaceFolder}`, `${CLAUDE_PROJECT_DIR}`). */
  folder: string;
  /** A plugin server's plugin root (`${CLAUDE_PLUGIN_ROOT}`). */
  pluginRoot?: string | null;
  /** Values for `${input:id}`, when someone could be asked (VS Code); absent: such a server cannot start. */
  inputs?: ReadonlyMap<string, string>;
}

export interface Expanded {
  value: string;
  /** Variables the text needs and the context lacks, as written (`${GITHUB_TOKEN}`). */
  missing: string[];
  /** Variables refused (`ANTHROPIC_*`). */
  refused: string[];
  /** `${input:id}` ids asked for. */
  inputs: string[];
  /** Whether any part came from a secret (`${{ secrets.X }}`, `${input:…}`). */
  secret: boolean;
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const NAME_ONLY = new RegExp(`^${NAME}$`);
/**
 * One pass over every form, so a value that comes from a variable is never
 * expanded again: `${{ secrets.X }}` / `${{ vars.X }}` / `${{ var.X }}`,
 * `${…}`, `$NAME`.
 */
const VARIABLE = new RegExp(`\\$\\{\\{\\s*(secrets|vars?)\\.(${NAME})\\s*\\}\\}|\\$\\{([^{}]*)\\}|\\$(${NAME})`, 'g');

function isRefused(name: string): boolean {
  return name.toUpperCase().startsWith('ANTHROPIC_');
}

export function expandVariables(text: string, syntax: McpVariableSyntax, context: VariableContext): Expanded {
  const out: Expanded = { value: text, missing: [], refused: [], inputs: [], secret: false };
  if (syntax === 'codex' || !text.includes('$')) return out;

  const fromEnv = (name: string, written: string, fallback?: string): string => {
    if (isRefused(name)) {
      out.refused.push(written);
      return '';
    }
    const value = own(context.env, name);
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    out.missing.push(written);
    return '';
  };

  const braced = (written: string, body: string): string => {
    const colon = body.indexOf(':');
    const scheme = colon > 0 ? body.slice(0, colon) : '';
    if (scheme === 'env' && (syntax === 'vscode' || syntax === 'copilot')) return fromEnv(body.slice(colon + 1), written);
    if (scheme === 'input' && (syntax === 'vscode' || syntax === 'copilot')) {
      const id = body.slice(colon + 1);
      out.inputs.push(id);
      out.secret = true;
      const given = context.inputs?.get(id);
      if (given !== undefined) return given;
      out.missing.push(written);
      return '';
    }
    if (syntax === 'vscode') {
      switch (body) {
        case 'workspaceFolder':
        case 'workspaceRoot':
          return context.folder;
        case 'workspaceFolderBasename':
          return context.folder.split(/[\\/]/).filter(Boolean).at(-1) ?? '';
        case 'userHome':
          return context.home;
        case 'pathSeparator':
        case '/':
          return process.platform === 'win32' ? '\\' : '/';
        default:
          out.missing.push(written);
          return '';
      }
    }
    if (syntax === 'claude') {
      if (body === 'CLAUDE_PLUGIN_ROOT' && context.pluginRoot) return context.pluginRoot;
      if (body === 'CLAUDE_PROJECT_DIR') return context.folder;
    }
    const dash = body.indexOf(':-');
    const name = dash >= 0 ? body.slice(0, dash) : body;
    if (!NAME_ONLY.test(name)) return written;
    return fromEnv(name, written, dash >= 0 ? body.slice(dash + 2) : undefined);
  };

  out.value = text.replace(VARIABLE, (written, kind: string | undefined, actionName: string | undefined, body: string | undefined, bare: string | undefined) => {
    if (kind !== undefined) {
      if (syntax !== 'copilot') return written;
      if (kind === 'secrets') out.secret = true;
      return fromEnv(actionName!, written);
    }
    if (body !== undefined) return braced(written, body.trim());
    // `$NAME` without braces: Copilot's and Gemini's; Claude Code and VS Code leave it as written.
    return syntax === 'copilot' || syntax === 'gemini' ? fromEnv(bare!, written) : written;
  });
  return out;
}

/**
 * Copilot's oldest form: an `env` value that is nothing but the name of a
 * `COPILOT_MCP_` variable stands for its value ("environment variable only").
 */
export function copilotBareName(value: string): string | null {
  return /^COPILOT_MCP_[A-Z0-9_]+$/.test(value) ? value : null;
}
