import * as vscode from 'vscode';

/** Registers command handlers so that none fails silently or with a stack in the user's face. */
export function registerGuarded(log: vscode.LogOutputChannel, commands: Record<string, (...args: unknown[]) => unknown>): vscode.Disposable[] {
  return Object.entries(commands).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        log.error(`${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        void vscode.window.showErrorMessage(`Subagents: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
  );
}
