import * as vscode from 'vscode';

/**
 * `${input:id}` in an agent file's own MCP server settings (VS Code's
 * variable form, which Copilot files may use): asked once per server and id
 * in a password box, kept for the window's session only, never written
 * anywhere. Declining leaves the server unstarted, with a notice saying why.
 */
export class McpInputs {
  readonly #answers = new Map<string, string>();

  async ask(server: string, ids: readonly string[]): Promise<ReadonlyMap<string, string> | null> {
    const out = new Map<string, string>();
    for (const id of ids) {
      const key = `${server}\0${id}`;
      let value = this.#answers.get(key);
      if (value === undefined) {
        value = await vscode.window.showInputBox({ title: `MCP server "${server}"`, prompt: `Value for \${input:${id}}`, password: true, ignoreFocusOut: true });
        if (value === undefined) return null;
        this.#answers.set(key, value);
      }
      out.set(id, value);
    }
    return out;
  }
}
