import * as vscode from 'vscode';
import type { AgentDefinition } from '../core/agents/definition';
import { resolveDefinition, resolvedMarkdown } from '../surfaces/resolvedDefinition';
import { pickFolder } from './pickers';
import type { FolderScope } from './scopes';
import type { Services } from './services';

/**
 * Subagents: Show Resolved Definition — what an agent gets when it runs,
 * without running it: the prompt as sent, its tools after mapping, its
 * permission rules, its model and the warnings about its file, as a
 * Markdown document (surfaces/resolvedDefinition.ts). The document is
 * made again whenever the agents change, so an edit to the file shows.
 */

export const RESOLVED_SCHEME = 'subagents-resolved';

/** `subagents-resolved:/<folder key>/<agent name>.md`: the name may hold `/` (opencode's `team/lead`). */
function uriOf(scope: FolderScope, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RESOLVED_SCHEME, path: `/${name}.md`, query: new URLSearchParams({ folder: scope.key }).toString() });
}

export class ResolvedDefinitions implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly #changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.#changed.event;
  readonly #open = new Set<string>();
  readonly #subscription: vscode.Disposable;

  constructor(private readonly services: Services) {
    this.#subscription = services.scopes.onDidChangeAgents(() => {
      for (const uri of this.#open) this.#changed.fire(vscode.Uri.parse(uri));
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.#open.add(uri.toString());
    const folder = new URLSearchParams(uri.query).get('folder') ?? '';
    const name = uri.path.replace(/^\//, '').replace(/\.md$/, '');
    const scope = this.services.scopes.get(folder);
    const definition = scope?.find(name);
    if (!scope || !definition) return `# ${name}\n\nNo agent "${name}" in this folder any more: its file was removed or renamed.\n`;
    return resolvedMarkdown(await resolve(scope, definition));
  }

  /** Opens the resolved definition of an agent: the Agents view's node, a name, or one the user picks. */
  async show(arg: unknown): Promise<boolean> {
    const given = arg as { agent?: unknown; folder?: unknown } | string | undefined;
    const folderKey = typeof given === 'object' && typeof given?.folder === 'string' ? given.folder : undefined;
    const scope = await pickFolder(this.services, folderKey);
    if (!scope) return false;
    let name = typeof given === 'string' ? given : typeof given?.agent === 'string' ? given.agent : undefined;
    if (!name) {
      // Every agent, those only other agents start among them: seeing one is not running it.
      const picked = await vscode.window.showQuickPick(
        scope.agents.map((agent) => ({ label: agent.name, description: agent.source, detail: agent.description })),
        { title: 'Subagents: Show Resolved Definition', placeHolder: 'Pick an agent', matchOnDetail: true },
      );
      name = picked?.label;
    }
    if (!name) return false;
    if (!scope.find(name)) {
      void vscode.window.showErrorMessage(`No agent "${name}" in ${scope.folder.name}.`);
      return false;
    }
    const uri = uriOf(scope, name);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    await vscode.window.showTextDocument(document, { preview: true });
    return true;
  }

  dispose(): void {
    this.#subscription.dispose();
    this.#changed.dispose();
  }
}

function resolve(scope: FolderScope, definition: AgentDefinition) {
  return resolveDefinition(definition, {
    settings: scope.settings,
    cwd: scope.folder.uri.fsPath,
    // A project's agent file reaches outside the project only with workspace trust, as when it runs.
    trusted: () => vscode.workspace.isTrusted,
    warnings: scope.catalog?.warnings ?? [],
    shadowed: scope.catalog?.shadowed ?? [],
  });
}
