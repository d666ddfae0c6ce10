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
export const DEMO_TASK = 'Check that the tests pass, and draft release notes for Tally in RELEASE-NOTES.md.';

/** Set once the welcome notification was shown: a reload must not stack another one. */
const WELCOMED_KEY = 'subagents.demoWelcomed';
/** True while agents run on the demo model: the palette shows Run the Demo. */
const DEMO_CONTEXT = 'subagents.demoModel';

/** Starts the demo session: the sample workspace's lead agent on its demo task (or the agent picker without the sample agents). */
export function runDemo(services: Services, runAgent: (args: { agent?: string; task?: string; folder?: string }) => Thenable<unknown>): Thenable<unknown> {
  const scope = services.scopes.all.find((s) => s.find(DEMO_AGENT));
  return runAgent(scope ? { agent: DEMO_AGENT, task: DEMO_TASK, folder: scope.key } : {});
}

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
  const update = () => {
    if (services.keys.demo) item.show();
    else item.hide();
    void vscode.commands.executeCommand('setContext', DEMO_CONTEXT, services.keys.demo);
  };
  update();
  const subscription = services.keys.onDidChange(update);

  if (services.keys.demo) services.log.info('No Anthropic API key: agents run on the demo model started by npm start.');
  // Once, not at every reload: afterwards the status bar item, the Runs view and the palette offer the demo.
  if (services.keys.demo && !services.context.globalState.get<boolean>(WELCOMED_KEY)) {
    void services.context.globalState.update(WELCOMED_KEY, true);
    void vscode.window
      .showInformationMessage(
        'No Anthropic API key: Subagents runs on its demo model, which plays a short scripted session with the sample agents. Set a key to run them on Claude.',
        RUN_DEMO,
        SET_KEY,
      )
      .then((choice) => {
        if (choice === SET_KEY) void vscode.commands.executeCommand('subagents.setApiKey');
        if (choice === RUN_DEMO) void runDemo(services, runAgent);
      });
  }
  return { dispose: () => (subscription.dispose(), item.dispose()) };
}
