import * as z from 'zod/mini';

/**
 * An agent's UI accent (the agent file's `color` field): the names Claude Code offers. Every
 * surface gets the same name through the run snapshot and maps it to its own
 * medium (a theme colour in VS Code, an ANSI colour in a terminal). Kept to
 * zod/mini and constants: the webview bundle imports it.
 */
export const AGENT_COLORS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan'] as const;
export type AgentColor = (typeof AGENT_COLORS)[number];

/** A definition's `color` as an accent, or null: case and spaces do not matter, unknown names are ignored. */
export function agentColor(value: unknown): AgentColor | null {
  if (typeof value !== 'string') return null;
  const name = value.trim().toLowerCase();
  return (AGENT_COLORS as readonly string[]).includes(name) ? (name as AgentColor) : null;
}

/**
 * The accent on the wire: optional (events and history files from before it
 * lack it), and a name this version does not know reads as none rather than
 * making the whole message or file invalid.
 */
export const agentColorField = z.optional(z.catch(z.nullable(z.enum(AGENT_COLORS)), null));

/**
 * The VS Code theme colour each accent shows as, so it follows the theme
 * (light, dark, high contrast). The charts palette has no pink or cyan; the
 * terminal's ANSI colours are the theme's closest.
 */
export const AGENT_COLOR_THEME: Readonly<Record<AgentColor, string>> = {
  red: 'charts.red',
  blue: 'charts.blue',
  green: 'charts.green',
  yellow: 'charts.yellow',
  purple: 'charts.purple',
  orange: 'charts.orange',
  pink: 'terminal.ansiBrightMagenta',
  cyan: 'terminal.ansiCyan',
};

/** The CSS variable a webview gets for a theme colour id (`charts.red` → `--vscode-charts-red`). */
export function themeColorCss(color: AgentColor): string {
  return `var(--vscode-${AGENT_COLOR_THEME[color].replace(/\./g, '-')})`;
}
