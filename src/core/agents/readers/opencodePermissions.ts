import type { PermissionAction, PermissionRule } from '../definition';
import { quote, type WarningSink } from '../interpretation/fieldValues';
import { OPENCODE_PERMISSIONS, toolKeyPermission } from '../formats/opencode';
import { isRecord } from './shared';

/**
 * opencode's (and Kilo's) permissions as the permission gate's rules.
 *
 * opencode folds a `tools` map into a permission object (each key's
 * permission — write, edit and patch are all `edit` — gets `allow` for true
 * and `deny` for false, in key order), assigns the `permission` field over
 * it (a key already there keeps its place, its value replaced), and turns
 * the object into rules in key order: a bare action is a rule for every
 * call, a map of patterns one rule per pattern. The last rule matching a
 * call decides; a tool whose last matching rule denies every call (pattern
 * `*`) is not offered at all.
 */

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];

/** A permission name (or wildcard) → the runtime tools it covers, or an MCP tool pattern (`github_*` → `mcp_github_*`). */
function permissionTools(key: string): string[] {
  if (key === '*') return ['*'];
  if (Object.hasOwn(OPENCODE_PERMISSIONS, key)) return [...OPENCODE_PERMISSIONS[key]!];
  // A wildcard over permission names that covers known ones (`web*`).
  if (/[*?]/.test(key)) {
    const pattern = globRegex(key);
    const known = Object.keys(OPENCODE_PERMISSIONS).filter((name) => pattern.test(name));
    if (known.length > 0) return [...new Set(known.flatMap((name) => OPENCODE_PERMISSIONS[name]!))];
  }
  // Any other key names MCP tools, `<server>_<tool>` in opencode: Gemini CLI's joined spelling here.
  return [`mcp_${key}`];
}

const compiled = new Map<string, RegExp>();

/** opencode's wildcard: `*` any text, `?` one character, the rest literal; a trailing ` *` also matches nothing after it. */
export function globRegex(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex) return regex;
  let source = pattern.replace(/\\/g, '/').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  if (source.endsWith(' .*')) source = `${source.slice(0, -3)}( .*)?`;
  regex = new RegExp(`^${source}$`, 's');
  // The keys and patterns files use are few and repeat across files: compiled once (and the cache kept small).
  if (compiled.size > 500) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** Whether a permission key (a name, or a wildcard over names) covers a permission. */
function keyCovers(key: string, permission: string): boolean {
  return key === permission || ((key.includes('*') || key.includes('?')) && globRegex(key).test(permission));
}

/** A permission's action; `key` and `pattern` name where it is written (`permission.<key>[.<pattern>]`), put into words only for a warning. */
function action(value: unknown, warn: WarningSink | null, key: string | null, pattern?: string): PermissionAction | null | undefined {
  // Kilo's `null` deletes a rule a lower layer set.
  if (value === null) return null;
  if (typeof value === 'string' && ACTIONS.includes(value)) return value as PermissionAction;
  const where = key === null ? 'permission' : pattern === undefined ? `permission.${key}` : `permission.${key}.${pattern}`;
  warn?.warn(`"${where}" must be allow, ask or deny, not ${quote(value)}`);
  return undefined;
}

/** OPENCODE_PERMISSIONS as a list, walked for every agent. */
const PERMISSION_ENTRIES = Object.entries(OPENCODE_PERMISSIONS);

export interface OpencodePermissions {
  rules: PermissionRule[];
  /** Runtime tools no call of which is allowed: not offered to the agent. */
  disabled: string[];
  /** False when a value is not a valid permission (opencode refuses the file). */
  valid: boolean;
}

/** The permission object after folding `tools` into it and assigning `permission` over it, in key order. */
export function foldPermissions(tools: unknown, permission: unknown, kilo: boolean, warn: WarningSink): { object: Record<string, unknown>; valid: boolean } {
  const object: Record<string, unknown> = {};
  let valid = true;
  if (tools !== undefined && tools !== null) {
    if (!isRecord(tools)) {
      warn.warn(`"tools" must be a map of tool names to true or false in ${kilo ? 'Kilo Code' : 'opencode'} files, not ${quote(tools)}`);
      valid = false;
    } else {
      for (const [key, enabled] of Object.entries(tools)) {
        if (typeof enabled !== 'boolean') {
          warn.warn(`"tools.${key}" must be true or false, not ${quote(enabled)}`);
          valid = false;
          continue;
        }
        object[toolKeyPermission(key, kilo)] = enabled ? 'allow' : 'deny';
      }
    }
  }
  if (permission === undefined || permission === null) return { object, valid };
  if (typeof permission === 'string') {
    if (action(permission, warn, null) === undefined) return { object, valid: false };
    object['*'] = permission;
    return { object, valid };
  }
  if (!isRecord(permission)) {
    warn.warn(`"permission" must be allow, ask, deny or a map of permissions, not ${quote(permission)}`);
    return { object, valid: false };
  }
  Object.assign(object, permission);
  return { object, valid };
}

/**
 * The rules of a folded permission object (see foldPermissions), checked:
 * what opencode refuses goes to `warn`; `notes` hears of rules that can never
 * decide anything (the file still loads, as in opencode).
 */
export function permissionRules(object: Record<string, unknown>, warn: WarningSink | null, notes: WarningSink | null = null): OpencodePermissions {
  const rules: PermissionRule[] = [];
  const byKey: { key: string; pattern: string; action: PermissionAction }[] = [];
  let valid = true;
  let denies = false;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const value = object[key];
    if (isRecord(value)) {
      for (const pattern in value) {
        if (!Object.hasOwn(value, pattern)) continue;
        const act = action(value[pattern], warn, key, pattern);
        if (act === undefined) valid = false;
        if (!act) continue;
        byKey.push({ key, pattern, action: act });
        if (pattern === '*' && act === 'deny') denies = true;
      }
      continue;
    }
    const act = action(value, warn, key);
    if (act === undefined) valid = false;
    if (!act) continue;
    byKey.push({ key, pattern: '*', action: act });
    if (act === 'deny') denies = true;
  }
  // A pattern rule that a later catch-all of its permission always overrides never decides anything: files
  // written as `"git *": allow` then `"*": ask` mean the opposite of what opencode does with them.
  for (let i = 0; i < byKey.length; i++) {
    const rule = byKey[i]!;
    if (rule.pattern === '*') continue;
    for (let j = i + 1; j < byKey.length; j++) {
      const later = byKey[j]!;
      if (later.pattern !== '*' || later.action === rule.action || !keyCovers(later.key, rule.key)) continue;
      notes?.warn(`permission.${rule.key} "${rule.pattern}": ${rule.action} never applies: the later permission.${later.key}: ${later.action} matches every call it matches, and the last matching rule decides (write the "*" rule first)`);
      break;
    }
  }
  for (const { key, pattern, action: act } of byKey) {
    rules.push({
      tools: permissionTools(key),
      pattern: pattern === '*' ? null : pattern,
      syntax: 'glob',
      negate: false,
      action: act,
      origin: pattern === '*' ? `permission.${key}: ${act}` : `permission.${key} "${pattern}": ${act}`,
    });
  }
  // opencode leaves out a tool whose last rule (by its permission's name, whatever the pattern) denies everything
  // (so only when some rule denies everything).
  const disabled: string[] = [];
  if (!denies) return { rules, disabled, valid };
  for (const [permission, tools] of PERMISSION_ENTRIES) {
    // The last rule covering the permission (a loop: no closure made per permission and agent).
    let j = byKey.length - 1;
    while (j >= 0 && !keyCovers(byKey[j]!.key, permission)) j--;
    const last = j >= 0 ? byKey[j]! : undefined;
    if (last && last.pattern === '*' && last.action === 'deny') for (const tool of tools) if (!disabled.includes(tool)) disabled.push(tool);
  }
  return { rules, disabled, valid };
}
