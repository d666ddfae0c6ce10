import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AgentDefinition } from '../agents/definition';
import { writeFileAtomic } from '../atomicFile';
import type { PermissionMode } from './permissions';

/**
 * A permission mode written in an agent file may narrow the mode the agent
 * would run under, never silently widen it. A cloned repository's
 * `permissionMode: bypassPermissions` must not switch approvals off: a file
 * that asks for more than the user's mode (or, for a subagent, its parent's)
 * gets it only with the user's consent for that agent, remembered for that
 * file's content (a digest of the whole definition, so any change to the
 * file asks again). Without a way to ask, the agent runs under the narrower
 * mode and the refusal says how to allow it.
 */

/** Strictest first. */
const RANK: Record<PermissionMode, number> = { plan: 0, default: 1, acceptEdits: 2, bypassPermissions: 3 };

export function widens(requested: PermissionMode, current: PermissionMode): boolean {
  return RANK[requested] > RANK[current];
}

/** What the user is asked to consent to. */
export interface ModeWidening {
  agentName: string;
  /** The definition file, or '' for an agent without one. */
  filePath: string;
  /** The mode the file asks for. */
  requested: PermissionMode;
  /** The mode the agent runs under without consent. */
  current: PermissionMode;
  /**
   * Set when it is the file's own permission rules that would run calls
   * without asking (opencode's `allow`, Kiro's `allowedTools`), not its
   * `permissionMode`: the rules, as the file writes them.
   */
  rules?: string[];
  /** The run tree that asks (the agent host asks whoever started it). */
  runId?: string;
}

/**
 * The mode an agent runs under; `refusal` says why a wider mode was not
 * granted, `warning` that a granted one could not be remembered.
 */
export interface ModeResolution {
  mode: PermissionMode;
  refusal: string | null;
  warning: string | null;
}

/** Asks the user; resolves true to allow this file (as it is now) to widen the mode. */
export type ModeConsentHandler = (request: ModeWidening, signal: AbortSignal) => Promise<boolean>;

interface Consent {
  digest: string;
  mode: PermissionMode;
  agentName: string;
  filePath: string;
  grantedAt: number;
}

export interface ModeConsentsOptions {
  /** Where consents are kept across sessions; without it they last for this process. */
  file?: string;
  /** How the surface asks (a terminal question, a VS Code prompt); without it, widening is refused. */
  ask?: ModeConsentHandler;
}

export class ModeConsents {
  readonly #options: ModeConsentsOptions;
  #granted: Promise<Map<string, Consent>> | null = null;
  /** Questions being asked, by digest: agents of one file spawned together are asked about once. */
  readonly #asking = new Map<string, Promise<boolean>>();

  constructor(options: ModeConsentsOptions = {}) {
    this.#options = options;
  }

  /**
   * The mode an agent runs under: its file's mode when that is no wider than
   * `current`, or wider with consent; otherwise `current`, with the refusal
   * to tell the user.
   */
  async resolve(definition: AgentDefinition, current: PermissionMode, signal: AbortSignal, runId?: string): Promise<ModeResolution> {
    const requested = definition.permissionMode;
    // Plan mode chosen by the caller (or spread from a planning parent) holds whatever the file says.
    if (current === 'plan') return { mode: 'plan', refusal: null, warning: null };
    if (!requested || !widens(requested, current)) return { mode: requested ?? current, refusal: null, warning: null };
    const digest = definitionDigest(definition);
    const granted = await this.#load();
    if (RANK[granted.get(digest)?.mode ?? 'plan'] >= RANK[requested]) return { mode: requested, refusal: null, warning: null };
    const request: ModeWidening = { agentName: definition.name, filePath: definition.filePath, requested, current, ...(runId ? { runId } : {}) };
    const allowed = await this.#ask(digest, request, signal);
    const where = definition.filePath ? ` (${definition.filePath})` : '';
    if (allowed && !signal.aborted) {
      const unsaved = await this.#remember({ digest, mode: requested, agentName: definition.name, filePath: definition.filePath, grantedAt: Date.now() });
      const warning = unsaved
        ? `Your consent for agent "${definition.name}"${where} to run with permissionMode ${requested} could not be saved to ${this.#options.file} (${unsaved}); ` +
          `it holds until this session ends, and you will be asked again after that.`
        : null;
      return { mode: requested, refusal: null, warning };
    }
    return {
      mode: current,
      warning: null,
      refusal:
        `Agent "${definition.name}"${where} asks for permissionMode ${requested}, wider than the ${current} it would run under; ` +
        `${this.#options.ask ? 'you did not allow it' : 'nobody could be asked'}, so it runs under ${current}. ` +
        `To allow it, approve the file when asked (remembered until the file changes), or choose the mode yourself (subagents.permissionMode, --permission-mode).`,
    };
  }

  /**
   * Whether an agent file's `allow` rules may run calls unasked that its
   * mode `current` would ask about: they amount to `level` (acceptEdits for
   * file changes, bypassPermissions for commands), granted as a wider
   * permission mode is — once per file content, remembered, shared with a
   * consent to the file's `permissionMode`.
   */
  async allowRules(definition: AgentDefinition, current: PermissionMode, level: PermissionMode, rules: string[], signal: AbortSignal, runId?: string): Promise<boolean> {
    if (!widens(level, current)) return true;
    const digest = definitionDigest(definition);
    const granted = await this.#load();
    if (RANK[granted.get(digest)?.mode ?? 'plan'] >= RANK[level]) return true;
    const allowed = await this.#ask(digest, { agentName: definition.name, filePath: definition.filePath, requested: level, current, rules, ...(runId ? { runId } : {}) }, signal);
    if (!allowed || signal.aborted) return false;
    await this.#remember({ digest, mode: level, agentName: definition.name, filePath: definition.filePath, grantedAt: Date.now() });
    return true;
  }

  #ask(digest: string, request: ModeWidening, signal: AbortSignal): Promise<boolean> {
    const ask = this.#options.ask;
    if (!ask) return Promise.resolve(false);
    let pending = this.#asking.get(digest);
    if (!pending) {
      pending = ask(request, signal)
        .catch(() => false)
        .finally(() => this.#asking.delete(digest));
      this.#asking.set(digest, pending);
    }
    return pending;
  }

  #load(): Promise<Map<string, Consent>> {
    this.#granted ??= readConsents(this.#options.file).then((list) => new Map(list.map((c) => [c.digest, c])));
    return this.#granted;
  }

  /** Keeps the consent for this session, and on disk when it can: resolves to why it could not, else null. */
  async #remember(consent: Consent): Promise<string | null> {
    (await this.#load()).set(consent.digest, consent);
    const file = this.#options.file;
    if (!file) return null;
    // Merged with what another process may have added meanwhile; a consent lost to a race is only asked again.
    const merged = new Map((await readConsents(file)).map((c) => [c.digest, c]));
    merged.set(consent.digest, consent);
    try {
      await writeFileAtomic(file, JSON.stringify([...merged.values()], null, 2));
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}

async function readConsents(file: string | undefined): Promise<Consent[]> {
  if (!file) return [];
  try {
    const list = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return Array.isArray(list) ? list.filter((c): c is Consent => typeof c?.digest === 'string' && typeof c?.mode === 'string' && c.mode in RANK) : [];
  } catch {
    return [];
  }
}

/** A digest of everything the definition says, keys in a fixed order: any change to the file changes it. */
export function definitionDigest(definition: AgentDefinition): string {
  return createHash('sha256').update(stableJson(definition)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
