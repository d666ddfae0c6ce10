import { visibleText } from '../protocol/visibleText';

/**
 * Text from a model, a tool, a file or an agent file made safe for a VS Code
 * notification. A notification's message is "linked text": `[label](command:…)`,
 * `(https:…)` or `(file:…)` in it becomes a live link, so a model could put a
 * fake "Allow" there that runs any command (`workbench.action.terminal.sendSequence`
 * types into the terminal). A zero-width space after every `]` keeps such
 * text from ever forming a link while it reads the same. Control characters
 * show as pictures and bidirectional overrides go (they reorder what is shown);
 * line breaks, which the notification would fold into spaces, show as ⏎.
 * Only links the product writes itself may be added after escaping.
 */
export function notificationText(text: string): string {
  return visibleText(text)
    .replace(/\]/g, ']\u200b')
    .replace(/\n/g, ' ⏎ ')
    .replace(/\t/g, ' ');
}

/** VS Code cuts a notification's message at 1,000 characters; longer text must be shown elsewhere, not cut. */
export const NOTIFICATION_MAX_CHARS = 1000;
