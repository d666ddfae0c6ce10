import * as vscode from 'vscode';
import type Anthropic from '@anthropic-ai/sdk';
import { notificationText } from './notificationText';
import { apiBaseUrl, createClient } from '../core/engine/loop/client';
import { checkKey, keyFormatProblem, type KeyCheck } from '../core/engine/loop/keyCheck';
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
    const keys = ApiKeys.open(secrets, baseUrl, env);
    await keys.loaded;
    return keys;
  }

  /**
   * The keys at once, the stored key still being read (`loaded`): for what
   * must be offered before activation can wait on secret storage (the chat's
   * models). Everything else uses `create`.
   */
  static open(secrets: vscode.SecretStorage, baseUrl: () => string, env: NodeJS.ProcessEnv = process.env): ApiKeys {
    const keys = new ApiKeys(secrets, baseUrl, env);
    keys.loaded = Promise.resolve(secrets.get(SECRET_KEY)).then(
      (stored) => {
        keys.#stored ??= stored || undefined;
        keys.#isLoaded = true;
      },
      () => {
        keys.#isLoaded = true;
      },
    );
    return keys;
  }

  /** Resolves once the stored key has been read. */
  loaded: Promise<void> = Promise.resolve();
  #isLoaded = false;

  get isLoaded(): boolean {
    return this.#isLoaded;
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

  /** Whether requests go to the Anthropic API itself (no other base URL): its keys have one form. */
  get anthropicApi(): boolean {
    return !apiBaseUrl(this.baseUrl(), this.env);
  }

  /** Asks the API in effect whether it accepts `key` (one free request), without storing it. */
  check(key: string, signal?: AbortSignal): Promise<KeyCheck> {
    return checkKey(createClient({ apiKey: key, baseUrl: this.baseUrl(), env: this.env }), signal);
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

const TRY_AGAIN = 'Try Another Key';
const STORE_ANYWAY = 'Store It Anyway';

/**
 * `subagents.setApiKey [key]`: asks for the key (masked) unless given,
 * checks its form as it is typed, then asks the API whether it accepts it
 * (one free request) before storing it in SecretStorage. A refused key is
 * not stored, and whatever ran before (the demo model, an earlier key) goes
 * on; a key that could not be checked (offline) is stored only if the user
 * says so.
 */
export async function setApiKeyCommand(keys: ApiKeys, log: vscode.LogOutputChannel, given?: unknown): Promise<boolean> {
  let key = typeof given === 'string' ? given.trim() : undefined;
  if (key === undefined) {
    const entered = await vscode.window.showInputBox({
      title: 'Subagents: Set API Key',
      prompt: 'Your Anthropic API key. It is checked with the API, then stored in VS Code\'s secret storage on this machine, never in settings.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => keyFormatProblem(value, keys.anthropicApi),
    });
    if (entered === undefined) return false;
    key = entered.trim();
  }
  // A key typed here gets the full form check; one a caller passes (a script, a test) only the basic one.
  const malformed = keyFormatProblem(key, keys.anthropicApi && typeof given !== 'string');
  const still = keys.demo ? ' Agents still run on the demo model.' : keys.key ? ' The key you had is still in use.' : '';
  if (malformed) {
    void vscode.window.showErrorMessage(`${malformed} Nothing was stored.${still}`);
    return false;
  }
  const asked = typeof given !== 'string';
  const checked = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Subagents: checking the API key…', cancellable: true },
    (_progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      return keys.check(key, controller.signal);
    },
  );
  if (checked.kind === 'refused') {
    log.warn(`A new API key was refused by the API (${checked.status}); it was not stored.`);
    const choice = await vscode.window.showErrorMessage(`${notificationText(checked.message)}. Nothing was stored.${still}`, TRY_AGAIN);
    if (choice === TRY_AGAIN) void vscode.commands.executeCommand('subagents.setApiKey');
    return false;
  }
  if (checked.kind === 'unchecked' && asked) {
    const choice = await vscode.window.showWarningMessage(`${notificationText(checked.message)} Store it without a check?${still}`, STORE_ANYWAY);
    if (choice !== STORE_ANYWAY) return false;
  }
  await keys.store(key);
  log.info(`An Anthropic API key was stored in VS Code secret storage${checked.kind === 'valid' ? ' (the API accepted it)' : ' (not checked)'}.`);
  void vscode.window.showInformationMessage(
    `${checked.kind === 'valid' ? 'The API accepted the key; it is' : 'The key is'} stored in VS Code's secret storage (not in settings) and used from now on${keys.origin === 'secret storage' && process.env.ANTHROPIC_API_KEY ? ', instead of ANTHROPIC_API_KEY' : ''}.`,
  );
  return true;
}

/** Runs whose refused key the user was told about: one notification per run, not one per agent. */
const toldKeyRejected = new Set<string>();

/**
 * A run ended on a refused key (401): a notification that says where the key
 * came from and offers Set API Key, once per run.
 */
export function announceKeyRejection(runId: string, origin: ApiKeys['origin']): void {
  if (toldKeyRejected.has(runId)) return;
  toldKeyRejected.add(runId);
  const from = origin === 'ANTHROPIC_API_KEY' ? 'the API key from ANTHROPIC_API_KEY' : origin === 'secret storage' ? 'the stored API key' : 'the API key';
  void vscode.window
    .showErrorMessage(`The Anthropic API rejected ${from} (401), so the run stopped. Set a working key, then run it again.`, SET_KEY, 'Show in Runs')
    .then((choice) => {
      if (choice === SET_KEY) void vscode.commands.executeCommand('subagents.setApiKey');
      if (choice === 'Show in Runs') void vscode.commands.executeCommand('subagents.showRun', { runId });
    });
}
