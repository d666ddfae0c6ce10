import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { McpTransport } from '../agents/mcpServers/spec';
import type { PlannedServer } from './plan';
import { copilotBareName, expandVariables, type VariableContext } from './variables';
import { own } from '../own';

/**
 * A planned server made concrete for one start: variables expanded against
 * the environment of that moment, Codex's by-name variables and headers
 * filled in, and everything a server must not get left out. The values of
 * settings that hold secrets are collected for redaction, so no surface
 * shows them (a server's error that echoes its token included).
 */

export interface ResolvedLaunch {
  transport: McpTransport;
  sseFallback: boolean;
  command: string | null;
  args: string[];
  /** The variables the settings give the server (the rest of its environment is the host's, without ANTHROPIC_*). */
  env: Record<string, string>;
  cwd: string;
  url: string | null;
  headers: Record<string, string>;
  /** Identifies the server within a run tree: agents asking for the same one share its connection. */
  key: string;
  /** Values to redact wherever they could appear. */
  secrets: string[];
}

/** Names of settings whose values are credentials. */
const SECRET_NAME = /token|key|secret|passw|pwd|auth|credential|cookie|session|bearer|(^|_)pat$/i;

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A variable or header that must never reach a server. */
function isAnthropic(name: string): boolean {
  return name.toUpperCase().startsWith('ANTHROPIC_');
}

/** VS Code's `envFile`: KEY=VALUE lines, `#` comments, optional quotes. */
function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const raw = match[2]!;
    out[match[1]!] = /^(['"]).*\1$/.test(raw) ? raw.slice(1, -1) : raw.replace(/\s+#.*$/, '');
  }
  return out;
}

export class LaunchProblem extends Error {
  override name = 'LaunchProblem';
}

export function resolveLaunch(server: PlannedServer, context: Omit<VariableContext, 'folder' | 'pluginRoot'>, /** Secrets of the product itself (the API key): refused wherever they appear. */ ownSecrets: readonly string[]): ResolvedLaunch {
  const { spec } = server;
  const vars: VariableContext = { ...context, folder: server.folder, pluginRoot: server.pluginRoot ?? null };
  const missing = new Set<string>();
  const refused = new Set<string>();
  const secrets = new Set<string>();
  const expand = (text: string, secretName = false): string => {
    const result = expandVariables(text, spec.variables, vars);
    for (const m of result.missing) missing.add(m);
    for (const r of result.refused) refused.add(r);
    if ((result.secret || secretName) && result.value) secrets.add(result.value);
    return result.value;
  };
  const fromEnv = (name: string, what: string): string | undefined => {
    if (isAnthropic(name)) {
      refused.add(`${what} ${name}`);
      return undefined;
    }
    return own(context.env, name) || undefined;
  };

  const env: Record<string, string> = {};
  if (spec.envFile) {
    const file = path.resolve(server.folder, expand(spec.envFile));
    try {
      for (const [name, value] of Object.entries(readEnvFile(file))) {
        env[name] = value;
        if (value && looksSecret(name)) secrets.add(value);
      }
    } catch (error) {
      throw new LaunchProblem(`its envFile ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  for (const name of spec.forwardEnv) {
    const value = fromEnv(name, 'env_vars');
    if (value !== undefined) env[name] = value;
  }
  for (const [name, raw] of Object.entries(spec.env)) {
    const bare = spec.variables === 'copilot' ? copilotBareName(raw) : null;
    const value = bare ? fromEnv(bare, 'env') : expand(raw, looksSecret(name));
    if (bare && value === undefined) missing.add(bare);
    if (value !== undefined) env[name] = value;
    if (value && (bare || looksSecret(name))) secrets.add(value);
  }
  for (const name of Object.keys(env)) {
    if (!isAnthropic(name)) continue;
    delete env[name];
    refused.add(`env ${name}`);
  }

  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(spec.headers)) headers[name] = expand(raw, true);
  for (const [name, variable] of Object.entries(spec.envHeaders)) {
    const value = fromEnv(variable, `env_http_headers ${name} →`);
    if (value !== undefined) headers[name] = value;
  }
  if (spec.bearerTokenEnv) {
    const token = fromEnv(spec.bearerTokenEnv, 'bearer_token_env_var');
    if (token === undefined) missing.add(spec.bearerTokenEnv);
    else headers.Authorization = `Bearer ${token}`;
  }
  for (const value of Object.values(headers)) if (value) secrets.add(value.replace(/^Bearer\s+/i, ''));
  for (const name of Object.keys(headers)) if (isAnthropic(name) || /^x-api-key$/i.test(name)) refused.add(`header ${name}`);

  const command = spec.command === null ? null : expand(spec.command);
  const args = spec.args.map((arg) => expand(arg));
  const url = spec.url === null ? null : expand(spec.url);
  const cwd = path.resolve(server.folder, spec.cwd === null ? '.' : expand(spec.cwd));

  if (refused.size > 0) throw new LaunchProblem(`its settings ask for ${[...refused].join(', ')}; no ANTHROPIC_* variable or the API key is ever given to an MCP server`);
  const everything = [command ?? '', ...args, url ?? '', ...Object.values(env), ...Object.values(headers)];
  if (ownSecrets.some((secret) => secret.length >= 8 && everything.some((value) => value.includes(secret)))) {
    throw new LaunchProblem('its settings hold the API key the agents run with, which is never given to an MCP server');
  }
  if (missing.size > 0) {
    const list = [...missing];
    const inputs = list.filter((m) => m.startsWith('${input:'));
    const why = inputs.length === list.length
      ? `it needs ${inputs.join(', ')}, which only VS Code's own MCP configuration can ask for`
      : `it needs ${list.join(', ')}, which ${list.length === 1 ? 'is' : 'are'} not set in the environment`;
    throw new LaunchProblem(why);
  }
  if (spec.transport === 'stdio' && !command) throw new LaunchProblem('it has no command');
  if (spec.transport !== 'stdio') {
    try {
      const parsed = new URL(url ?? '');
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(parsed.protocol);
    } catch {
      throw new LaunchProblem(`its url "${url ?? ''}" is not an http(s) URL`);
    }
  }

  const key = createHash('sha256')
    .update(JSON.stringify([spec.transport, command, args, env, cwd, url, headers]))
    .digest('hex')
    .slice(0, 16);
  return { transport: spec.transport, sseFallback: spec.sseFallback, command, args, env, cwd, url, headers, key, secrets: [...secrets].filter((s) => s.length >= 8) };
}
