import * as vscode from 'vscode';
import type Anthropic from '@anthropic-ai/sdk';
import { apiBaseUrl, createClient } from '../core/engine/client';
import type { Credentials } from '../core/runtime/scopeSpec';
import { ADMISSION_WORDS } from '../protocol/admission';

/**
 * Where the Anthropic API key comes from: VS Code's SecretStorage
 * first (an explicit choice made in this editor), then `ANTHROPIC_API_KEY`
 * from the extension host's environment. Never a setting, never logged.
 *
 * The engines get one client object for the life of the window; it forwards
 * to a real SDK client made on first use and remade when the key or the base
 * URL in effect changes, so setting a key never needs a reload and running
 * agents keep their engine. The base URL follows the one rule of
 * `apiBaseUrl()`: `ANTHROPIC_BASE_URL` over `subagents.apiBaseUrl`.
 */

export const SECRET_KEY = 'subagents.anthropicApiKey';

/**
 * Set by `npm start` when it started the built-in demo model (no
 * ANTHROPIC_API_KEY): where that scripted Messages API server listens. Used
 * only while no key is stored either; storing a key switches to the real API.
 */
export const DEMO_MODEL_ENV = 'SUBAGENTS_DEMO_MODEL_URL';
const DEMO_KEY = 'demo-model-no-key';

export { demoModelName } from '../core/runtime/scopeSpec';

export class ApiKeys implements vscode.Disposable {
  #stored: string | undefined;
  #client: { key: string; baseUrl: string | undefined; client: Anthropic } | undefined;
  readonly #onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this.#onDidChange.event;
  readonly #subscription: vscode.Disposable;

  private constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly baseUrl: () => string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.#subscription = secrets.onDidChange(async (e) => {
      if (e.key !== SECRET_KEY) return;
      this.#stored = (await secrets.get(SECRET_KEY)) || undefined;
      this.#onDidChange.fire();
    });
  }

  static async create(secrets: vscode.SecretStorage, baseUrl: () => string, env: NodeJS.ProcessEnv = process.env): Promise<ApiKeys> {
    const keys = new ApiKeys(secrets, baseUrl, env);
    keys.#stored = (await secrets.get(SECRET_KEY)) || undefined;
    return keys;
  }

  /** The key in effect, or undefined when there is none. */
  get key(): string | undefined {
    return this.#stored ?? (this.env.ANTHROPIC_API_KEY || undefined);
  }

  /** True while agents run on `npm start`'s demo model: no key, and a demo model to talk to. */
  get demo(): boolean {
    return !this.key && Boolean(this.env[DEMO_MODEL_ENV]);
  }

  /** Where the key in effect comes from, for messages (never the key itself). */
  get origin(): 'secret storage' | 'ANTHROPIC_API_KEY' | null {
    if (this.#stored) return 'secret storage';
    return this.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : null;
  }

  async store(key: string): Promise<void> {
    this.#stored = key;
    await this.secrets.store(SECRET_KEY, key);
  }

  async clear(): Promise<void> {
    this.#stored = undefined;
    await this.secrets.delete(SECRET_KEY);
  }

  /**
   * The SDK client for the current key and base URL. Throws the engine's
   * "No Anthropic API key" error when there is none; callers that start runs
   * check `key` first and offer "Set API Key" instead.
   */
  client(): Anthropic {
    if (this.demo) return this.#demoClient();
    const key = this.key;
    // The URL in effect (the environment's over the setting), so a change of either makes a new client.
    const baseUrl = apiBaseUrl(this.baseUrl(), this.env);
    if (this.#client && this.#client.key === key && this.#client.baseUrl === baseUrl) return this.#client.client;
    const client = createClient({ apiKey: key, baseUrl, env: this.env });
    this.#client = { key: key!, baseUrl, client };
    return client;
  }

  #demoClient(): Anthropic {
    const baseUrl = this.env[DEMO_MODEL_ENV]!;
    if (this.#client?.key === DEMO_KEY && this.#client.baseUrl === baseUrl) return this.#client.client;
    // The demo server takes any key; a fixed placeholder keeps a real one (say ANTHROPIC_API_KEY set later) from ever reaching it.
    const client = createClient({ apiKey: DEMO_KEY, baseUrl, env: {} });
    this.#client = { key: DEMO_KEY, baseUrl, client };
    return client;
  }

  /**
   * What a run request carries: the key in effect and where requests go
   * (the demo model's placeholder key and address while it plays). Read
   * at each request, so a key set meanwhile applies to the next run.
   */
  credentials(): Credentials {
    if (this.demo) return { apiKey: DEMO_KEY, baseUrl: this.env[DEMO_MODEL_ENV]! };
    const baseUrl = apiBaseUrl(this.baseUrl(), this.env);
    return { ...(this.key ? { apiKey: this.key } : {}), ...(baseUrl ? { baseUrl } : {}) };
  }

  dispose(): void {
    this.#subscription.dispose();
    this.#onDidChange.dispose();
  }
}

const SET_KEY = 'Set API Key';

/**
 * True when a key is available; otherwise says so with a button that runs
 * "Set API Key" (never an exception in the user's face).
 */
export function ensureApiKey(keys: ApiKeys): boolean {
  if (keys.key || keys.demo) return true;
  void vscode.window
    .showErrorMessage(ADMISSION_WORDS.noKey(), SET_KEY)
    .then((choice) => {
      if (choice === SET_KEY) void vscode.commands.executeCommand('subagents.setApiKey');
    });
  return false;
}

/** `subagents.setApiKey [key]`: asks for the key (masked) unless given, and stores it in SecretStorage. */
export async function setApiKeyCommand(keys: ApiKeys, log: vscode.LogOutputChannel, given?: unknown): Promise<boolean> {
  let key = typeof given === 'string' ? given.trim() : undefined;
  if (key === undefined) {
    const entered = await vscode.window.showInputBox({
      title: 'Subagents: Set API Key',
      prompt: 'Your Anthropic API key. It is stored in VS Code\'s secret storage on this machine, never in settings.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? null : 'Enter a key, or press Escape to cancel.'),
    });
    if (entered === undefined) return false;
    key = entered.trim();
  }
  if (!key) {
    void vscode.window.showErrorMessage('The API key is empty; nothing was stored.');
    return false;
  }
  await keys.store(key);
  log.info('An Anthropic API key was stored in VS Code secret storage.');
  void vscode.window.showInformationMessage(
    'Anthropic API key stored in VS Code\'s secret storage (not in settings). It is used instead of ANTHROPIC_API_KEY from now on.',
  );
  return true;
}
