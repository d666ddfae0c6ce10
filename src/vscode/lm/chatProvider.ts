import * as vscode from 'vscode';
import Anthropic from '@anthropic-ai/sdk';
import type { ApiKeys } from '../apiKey';
import { demoModelName } from '../apiKey';
import { estimateTokens, toAnthropicMessages, toAnthropicTools, toolChoice } from '../../surfaces/lm/messageConversion';

/**
 * Claude models from the user's key in VS Code's model picker: a
 * language-model chat provider under the vendor id `subagents` (Copilot Chat
 * owns `anthropic`). Models are listed from the API's models endpoint, with
 * the configured aliases as the list when it cannot be reached (no key yet,
 * offline, `npm start`'s demo model). Requests stream text and tool calls
 * through the same client the engine uses. Our own chat participant runs our
 * engine whatever this picker shows; this provider is for VS Code's chat and
 * other extensions.
 */

export const VENDOR = 'subagents';

export interface ClaudeModelInfo extends vscode.LanguageModelChatInformation {
  /** Where the entry came from: the models endpoint, or the configured aliases. */
  readonly origin: 'api' | 'aliases';
}

/** For models whose limits the API does not give (the aliases, endpoints without them). */
const MAX_INPUT_TOKENS = 200_000;
const MAX_OUTPUT_TOKENS = 32_000;

/** A model's limits, as the models endpoint gives them (null or absent: unknown). */
interface Limits {
  max_input_tokens?: number | null;
  max_tokens?: number | null;
}

/** `claude-sonnet-5-5` → `Claude Sonnet 5.5`. */
export function displayName(id: string): string {
  const words = id.split('-');
  const numbers: string[] = [];
  while (words.length > 1 && /^\d+$/.test(words.at(-1)!) && numbers.length < 2) numbers.unshift(words.pop()!);
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return numbers.length ? `${name} ${numbers.join('.')}` : name;
}

/** `claude-sonnet-5-5` → `claude-sonnet`: VS Code's family, what callers select by. */
function familyOf(id: string): string {
  return /^(claude-(?:opus|sonnet|haiku))/.exec(id)?.[1] ?? id.replace(/-\d.*$/, '');
}

function info(id: string, name: string, origin: ClaudeModelInfo['origin'], detail: string, limits: Limits = {}): ClaudeModelInfo {
  return {
    id,
    name,
    family: familyOf(id),
    version: id,
    detail,
    tooltip: `${name} through your Anthropic API key (Subagents)`,
    // A request's max_tokens is this: above the model's own limit, the API refuses every request.
    maxInputTokens: limits.max_input_tokens || MAX_INPUT_TOKENS,
    maxOutputTokens: limits.max_tokens || MAX_OUTPUT_TOKENS,
    capabilities: { toolCalling: true, imageInput: true },
    origin,
  };
}

export class ClaudeChatProvider implements vscode.LanguageModelChatProvider<ClaudeModelInfo>, vscode.Disposable {
  readonly #onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.#onDidChange.event;
  #listed: ClaudeModelInfo[] | null = null;
  #listing: Promise<void> | null = null;
  readonly #subscription: vscode.Disposable;

  constructor(
    private readonly keys: ApiKeys,
    private readonly aliases: () => Readonly<Record<string, string>>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    // A new key (or none) may see other models: list again.
    this.#subscription = keys.onDidChange(() => {
      this.#listed = null;
      this.#listing = null;
      this.#onDidChange.fire();
    });
  }

  /**
   * Answers at once (the model picker and the first chat request wait on
   * it): the last list from the API, else the aliases; the API's list is
   * fetched in the background and announced when it arrives.
   */
  provideLanguageModelChatInformation(): ClaudeModelInfo[] | Promise<ClaudeModelInfo[]> {
    // Asked during activation, maybe before the stored key is read: demo or not decides the names.
    if (!this.keys.isLoaded) return this.keys.loaded.then(() => this.#information());
    return this.#information();
  }

  #information(): ClaudeModelInfo[] {
    if (!this.#listed && !this.#listing && this.keys.key && !this.keys.demo) this.#listing = this.#fetchModels();
    return this.#listed ?? this.#fromAliases();
  }

  #fromAliases(): ClaudeModelInfo[] {
    const aliases = this.aliases();
    const seen = new Set<string>();
    const models: ClaudeModelInfo[] = [];
    for (const [alias, id] of Object.entries(aliases)) {
      const modelId = this.keys.demo ? demoModelName(id, aliases) : id;
      if (seen.has(modelId)) continue;
      seen.add(modelId);
      models.push(info(modelId, this.keys.demo ? `Demo model (${alias})` : displayName(id), 'aliases', this.keys.demo ? 'npm start demo' : `alias ${alias}`));
    }
    return models;
  }

  async #fetchModels(): Promise<void> {
    try {
      const models: ClaudeModelInfo[] = [];
      for await (const model of this.keys.client().models.list({ limit: 100 })) {
        // A retired model is listed for the record only: every request to it fails.
        if (model.id.startsWith('claude-') && model.lifecycle !== 'retired') models.push(info(model.id, model.display_name || displayName(model.id), 'api', model.lifecycle === 'deprecated' ? 'Anthropic API · deprecated' : 'Anthropic API', model));
      }
      if (models.length === 0) return;
      this.#listed = models;
      this.#onDidChange.fire();
    } catch (error) {
      // Offline, a compatible endpoint without /v1/models, a bad key: the aliases stay the list.
      this.log.info(`Could not list Claude models from the API (${error instanceof Error ? error.message : String(error)}); offering the configured aliases.`);
    }
  }

  async provideLanguageModelChatResponse(
    model: ClaudeModelInfo,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    await this.keys.loaded;
    if (!this.keys.key && !this.keys.demo) {
      throw vscode.LanguageModelError.NoPermissions('No Anthropic API key: run "Subagents: Set API Key" (or set ANTHROPIC_API_KEY) to use Claude models from Subagents.');
    }
    const tools = toAnthropicTools(options.tools);
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort());
    try {
      const stream = this.keys.client().messages.stream(
        {
          model: model.id,
          max_tokens: model.maxOutputTokens,
          messages: toAnthropicMessages(messages),
          ...(tools ? { tools, tool_choice: toolChoice(options.toolMode, tools) } : {}),
        },
        { signal: controller.signal },
      );
      stream.on('text', (text) => progress.report(new vscode.LanguageModelTextPart(text)));
      stream.on('contentBlock', (block) => {
        if (block.type === 'tool_use') progress.report(new vscode.LanguageModelToolCallPart(block.id, block.name, (block.input ?? {}) as object));
      });
      await stream.finalMessage();
    } catch (error) {
      if (token.isCancellationRequested) return;
      throw this.#asLanguageModelError(error, model.id);
    } finally {
      cancel.dispose();
    }
  }

  #asLanguageModelError(error: unknown, modelId: string): Error {
    if (error instanceof Anthropic.AuthenticationError || error instanceof Anthropic.PermissionDeniedError) {
      return vscode.LanguageModelError.NoPermissions(`The Anthropic API refused the key (${error.status}): set another with "Subagents: Set API Key".`);
    }
    if (error instanceof Anthropic.NotFoundError) return vscode.LanguageModelError.NotFound(`The Anthropic API does not know the model ${modelId}.`);
    if (error instanceof Anthropic.APIError) return new Error(`Anthropic API error${error.status ? ` ${error.status}` : ''}: ${error.message}`);
    return error instanceof Error ? error : new Error(String(error));
  }

  provideTokenCount(_model: ClaudeModelInfo, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    return Promise.resolve(estimateTokens(text));
  }

  dispose(): void {
    this.#subscription.dispose();
    this.#onDidChange.dispose();
  }
}
