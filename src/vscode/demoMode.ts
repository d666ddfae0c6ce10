import * as vscode from 'vscode';
import type { Services } from './services';

/**
 * `npm start` without an API key: agents run on the built-in demo model (a
 * scripted Messages API server, see scripts/demo-model.ts). The UI says so
 * plainly, all the time: a status bar item while the demo model is in use
 * (its models are named `demo-…` in every run), and once per window a
 * notification that offers the demo session and the way to a real key.
 */

const RUN_DEMO = 'Run the Demo';
const SET_KEY = 'Set API Key';

/** The sample workspace's lead agent and a task its demo session plays out. */
export const DEMO_AGENT = 'tech-lead';
export const DEMO_TASK = 'Check that the tests pass, and draft release notes for Tally in NOTES.md.';

export function demoMode(services: Services, runAgent: (args: { agent?: string; task?: string; folder?: string }) => Thenable<unknown>): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('subagents.demoModel', vscode.StatusBarAlignment.Left, 0);
  item.name = 'Subagents demo model';
  item.text = '$(beaker) Subagents: demo model';
  item.tooltip = new vscode.MarkdownString(
    '**No Anthropic API key**: agents run on the built-in demo model, which plays a short scripted session with the sample agents (models named `demo-…`). ' +
      'It cannot read your requests.\n\nClick to set an API key (kept in VS Code\'s secret storage) and run agents on Claude.',
  );
  item.command = { command: 'subagents.setApiKey', title: SET_KEY };
  item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  const update = () => (services.keys.demo ? item.show() : item.hide());
  update();
  const subscription = services.keys.onDidChange(update);

  if (services.keys.demo) {
    services.log.info('No Anthropic API key: agents run on the demo model started by npm start.');
    void vscode.window
      .showInformationMessage(
        'No Anthropic API key: Subagents runs on its demo model, which plays a short scripted session with the sample agents. Set a key to run them on Claude.',
        RUN_DEMO,
        SET_KEY,
      )
      .then((choice) => {
        if (choice === SET_KEY) void vscode.commands.executeCommand('subagents.setApiKey');
        if (choice !== RUN_DEMO) return;
        const scope = services.scopes.all.find((s) => s.find(DEMO_AGENT));
        // Without the sample agents, let the user pick one.
        void runAgent(scope ? { agent: DEMO_AGENT, task: DEMO_TASK, folder: scope.key } : {});
      });
  }
  return { dispose: () => (subscription.dispose(), item.dispose()) };
}
