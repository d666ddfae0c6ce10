import { statSync } from 'node:fs';
import type { ListedFile } from '../sources/agentFiles';
import type { ResolvedSources } from '../sources/sources';

/**
 * The dirs discovery resolved (with what resolving them warned about) and
 * the files each lists, before any is read (see listAgentDirs).
 */
export interface Listing {
  sources: ResolvedSources;
  /** Per dir of `sources.dirs`, its files in precedence order. */
  files: ListedFile[][];
}

/**
 * A text of everything a listing's discovery result depends on: the dirs
 * (paths, sources, families, plugins, listing rules), the resolving
 * warnings, and every listed file with its stamp (mtime, size, inode, and
 * the change time, which a chmod moves too), taken with one stat per file
 * and nothing read. A definition is a function of its file and its dir, and
 * a file is trusted to be unchanged while it keeps its stamp (the rule of
 * the loader's caches), so two listings with the same fingerprint discover
 * the same agents. `salt` adds what else the
 * caller's answer depends on (its build, its output format). Kept whole and
 * compared whole, not digested: hashing it loaded node:crypto, which cost a
 * listing's start-up more than the text costs to store (some 60 bytes a file).
 */
export function listingFingerprint(listing: Listing, salt: string): string {
  const parts: string[] = [salt, JSON.stringify(listing.sources.dirs), JSON.stringify(listing.sources.warnings)];
  for (const files of listing.files) {
    parts.push('\0');
    for (const file of files) {
      const st = statSync(file.filePath, { throwIfNoEntry: false });
      parts.push(file.relPath, st?.isFile() ? `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}` : '-');
    }
  }
  return parts.join('\n');
}
