import path from 'node:path';
import { AGENT_FAMILIES, type AgentFamily, type AgentSource } from '../core/agents/definition';
import { agentFileKind as kindByPath, isJsonPath, isModesFile, isTomlPath, singleFileFamily } from '../core/agents/formats';
import { userAgentsDir, type AgentDir } from '../core/agents/sources/sources';

/**
 * Whether an open file is one discovery reads as an agent definition, and
 * as what (its source and family decide precedence and how it is parsed).
 * The dirs discovery searched answer for files that exist; a new file in a
 * family dir that does not exist yet (the first `.claude/agents/x.md` of a
 * project, a first `.roomodes`) counts as soon as it is opened, as it will
 * once it is saved.
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

/** Whether the dir lists the file: its named files alone, or what its rules take in its tree. */
function lists(dir: AgentDir, filePath: string): boolean {
  if (dir.rules?.only) return dir.rules.only.some((name) => path.join(dir.path, name) === filePath);
  if (!isWithin(filePath, dir.path)) return false;
  const depth = path.relative(dir.path, filePath).split(path.sep).length;
  if (dir.rules?.depth !== undefined && depth > dir.rules.depth) return false;
  if (isJsonPath(filePath)) return dir.rules?.json === true && depth === 1;
  if (isTomlPath(filePath)) return dir.rules?.toml === true;
  return filePath.toLowerCase().endsWith('.md');
}

export function agentFileKind(filePath: string, dirs: readonly AgentDir[], home: string): AgentFileKind | null {
  const kind = kindOf(filePath, dirs, home);
  // Only Codex reads TOML agents (and only TOML in its folders is Codex's); only Kiro JSON agents, beside the config and modes files.
  if (kind && isTomlPath(filePath) && kind.family !== '.codex') return null;
  if (kind && isJsonPath(filePath) && kind.family !== '.kiro' && !singleFileFamily(filePath)) return null;
  return kind;
}

function kindOf(filePath: string, dirs: readonly AgentDir[], home: string): AgentFileKind | null {
  const agentLike = filePath.toLowerCase().endsWith('.md') || isTomlPath(filePath) || isJsonPath(filePath) || isModesFile(filePath);
  if (!agentLike) return null;
  for (const dir of dirs) if (lists(dir, filePath)) return { source: dir.source, family: dir.family };
  for (const family of AGENT_FAMILIES) {
    const user = userAgentsDir(family, home);
    if (isWithin(filePath, user)) return { source: 'user', family };
  }
  // Not in a folder discovery read (yet): its path says what it is, a project's file.
  const byPath = kindByPath(filePath);
  if (!byPath?.family) return null;
  const inHome = !path.relative(home, filePath).startsWith('..');
  const source: AgentSource = inHome && !singleFileFamily(filePath) && path.relative(home, filePath).split(path.sep)[0]?.startsWith('.') ? 'user' : 'project';
  return { source, family: byPath.family };
}
