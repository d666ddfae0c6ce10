import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The `agents/` folder shipped with the extension. This module runs from the
 * bundles in `dist/` (extension, CLI, language server) and, in tests, from
 * `src/core/agents/sources/` through tsx; in both cases the folder sits next to the
 * package's package.json, so walk up to that instead of hard-coding depths.
 */
export function bundledAgentsDir(from: string = __dirname): string {
  let current = path.resolve(from);
  for (;;) {
    if (existsSync(path.join(current, 'package.json')) && existsSync(path.join(current, 'agents'))) {
      return path.join(current, 'agents');
    }
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  // Not found: a path that reads as empty and names where it looked.
  return path.resolve(from, '..', 'agents');
}
