import * as vscode from 'vscode';
import { isActiveStatus } from '../protocol/vocabulary';
import { ensureApiKey } from './apiKey';
import { pickRunningAgent } from './pickers';
import { announceWhenDone, ensureTrusted } from './runCommands';
import type { Services } from './services';

/**
 * Send Message to Agent: what the Runs view's message box, the
 * chat's "Message …" button, the palette and the key binding do. A message
 * to an agent at work is read at its next turn boundary; one to an agent
 * that has ended continues it; one to an agent another process runs waits
 * in the mailbox that process watches. Arguments skip the dialogs.
 */

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Returns how the message went (`queued`, `continued`), or undefined when it was not sent. */
export async function sendMessageCommand(services: Services, reveal: (runId?: string) => Promise<void>, agentId?: unknown, text?: unknown, via?: unknown): Promise<string | undefined> {
  if (!ensureTrusted('Sending a message to an agent')) return undefined;
  const id =
    typeof agentId === 'string' && agentId
      ? agentId
      : await pickRunningAgent(services, {
          title: 'Subagents: Send Message to Agent',
          placeHolder: 'Which agent should read it?',
          none: 'No agent is running. To continue one that ended, use its follow-up button in the Runs view.',
        });
  if (!id) return undefined;
  const node = services.agentNode(id);
  const name = node?.agentName ?? id;
  const atWork = node ? isActiveStatus(node.status) : true;
  let message = typeof text === 'string' ? text.trim() : '';
  if (!message) {
    const entered = await vscode.window.showInputBox({
      title: `Subagents: Message ${name}`,
      prompt: atWork ? `${name} reads it at its next turn and goes on with it.` : `${name} has ended: the message continues it, with its whole conversation.`,
      placeHolder: 'What should it know?',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? null : 'Write the message, or press Escape to cancel.'),
    });
    if (!entered?.trim()) return undefined;
    message = entered.trim();
  }
  // A message may continue the agent: that needs a key, as any run does.
  if (!atWork && !ensureApiKey(services.keys)) return undefined;
  const surface = typeof via === 'string' && via ? via : 'vscode';
  try {
    const outcome = await services.sendMessage(id, message, surface);
    if (outcome.delivery === 'continued') {
      services.log.info(`A message continued ${name} (${id}).`);
      void announceWhenDone(outcome.handle, (runId) => services.store.get(runId));
      await reveal(outcome.handle.runId);
      return 'continued';
    }
    const where = outcome.delivery === 'elsewhere' ? `, which ${outcome.owner} runs,` : '';
    services.log.info(`Message queued for ${name} (${id})${where}.`);
    // The Runs view shows the message under the agent's row: no toast for a message sent from there.
    if (surface !== 'runsView') void vscode.window.showInformationMessage(`Message sent to ${name}${where}: it reads it at its next turn.`);
    return 'queued';
  } catch (error) {
    void vscode.window.showErrorMessage(`Could not send the message to ${name}: ${errorText(error)}`);
    return undefined;
  }
}
