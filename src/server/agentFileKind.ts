import path from 'node:path';
import { AGENT_FAMILIES, type AgentFamily, type AgentSource } from '../core/agents/definition';
import { isTomlPath } from '../core/agents/formats';
import { userAgentsDir, type AgentDir } from '../core/agents/sources';

/**
 * Whether an open file is one discovery reads as an agent definition, and
 * as what (its source and family decide precedence and how it is parsed).
 * The dirs discovery searched answer for files that exist; a new file in a
 * family dir that does not exist yet (the first `.claude/agents/x.md` of a
 * project) counts as soon as it is opened, as it will once it is saved.
 */

export interface AgentFileKind {
  source: AgentSource;
  family: AgentFamily | null;
}

function isWithin(filePath: string, dir: string): boolean {
  const rel = path.relative(dir, filePath);
  // Discovery skips dot-files and dot-folders inside an agents dir.
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).some((s) => s.startsWith('.'));
}

function isMarkdown(filePath: string): boolean {
  return filePath.toLowerCase().endsWith('.md');
}

export function agentFileKind(filePath: string, dirs: readonly AgentDir[], home: string): AgentFileKind | null {
  const kind = kindOf(filePath, dirs, home);
  // Only Codex reads TOML agents (and only TOML in its folders is Codex's).
  if (kind && isTomlPath(filePath) && kind.family !== '.codex') return null;
  return kind;
}

function kindOf(filePath: string, dirs: readonly AgentDir[], home: string): AgentFileKind | null {
  if (!isMarkdown(filePath) && !isTomlPath(filePath)) return null;
  for (const dir of dirs) {
    if (isWithin(filePath, dir.path)) return { source: dir.source, family: dir.family };
  }
  for (const family of AGENT_FAMILIES) {
    const user = userAgentsDir(family, home);
    if (user && isWithin(filePath, user)) return { source: 'user', family };
  }
  const segments = filePath.split(path.sep);
  for (let i = segments.length - 3; i >= 0; i--) {
    const family = AGENT_FAMILIES.find((f) => f === segments[i]);
    if (family && segments[i + 1] === 'agents' && isWithin(filePath, segments.slice(0, i + 2).join(path.sep))) {
      return { source: 'project', family };
    }
  }
  return null;
}
