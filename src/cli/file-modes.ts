/**
 * The data directory and the SQLite files hold password hashes, emails, API key hashes and the ledger:
 * `citewise` creates them readable by their owner only (directory 0700, files 0600). Files made by older
 * versions, or by hand, may be wider: `serve` names them at start (it does not change them).
 */
import { statSync } from 'node:fs';

/** A path readable (or writable) by other users than its owner, and its mode in octal, e.g. `0644`. */
export interface WideFile {
  readonly path: string;
  readonly mode: string;
  /** The mode it should have: `700` for a directory, `600` for a file. */
  readonly wanted: '700' | '600';
}

/** The files and directories among `paths` that exist and give any right to group or others. */
export function widerThanOwner(paths: readonly string[]): WideFile[] {
  const wide: WideFile[] = [];
  for (const path of new Set(paths)) {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      continue; // not there (yet): nothing to say
    }
    const mode = stats.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      wide.push({ path, mode: `0${mode.toString(8)}`, wanted: stats.isDirectory() ? '700' : '600' });
    }
  }
  return wide;
}

/** The SQLite database at `path` with its WAL and shared-memory files. */
export function sqliteFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}
