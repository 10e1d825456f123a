/**
 * The persisted index files a local index reads besides its folders (`index.json` written by older
 * versions, or given as `indexFiles`): what each one last contributed, keyed by its path, and the file
 * version (mtime, size, inode) it was read at, so that a changed file is read again and what it no longer
 * holds is removed.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** A file that could not be read, and why. */
export interface IndexFileFailure {
  readonly file: string;
  readonly reason: string;
}

/** What {@link createIndexFileSync} reads the files into. */
export interface IndexFileSyncOptions {
  /** The index files (resolved against the working directory). */
  readonly files: readonly string[];
  /** Adds a file's parsed JSON to the index; returns the URLs it added (failures of its entries go to `failures`). */
  read(data: unknown, failures: IndexFileFailure[], file: string): Iterable<string>;
  /** Removes a document the files no longer provide. */
  remove(url: string): void;
  /** URLs provided otherwise (the folders), never removed here. */
  alsoProvided(): ReadonlySet<string>;
}

/** Keeps the index in step with its index files: `sync` re-reads the changed ones. */
export function createIndexFileSync(options: IndexFileSyncOptions): {
  readonly sync: () => Promise<IndexFileFailure[]>;
  readonly urls: () => Set<string>;
} {
  const files = options.files.map((file) => path.resolve(file));
  const states = new Map<string, { version: string; urls: ReadonlySet<string> }>();
  let syncing: Promise<IndexFileFailure[]> | undefined;
  const urls = (): Set<string> => new Set([...states.values()].flatMap((state) => [...state.urls]));

  const syncOnce = async (): Promise<IndexFileFailure[]> => {
    const failures: IndexFileFailure[] = [];
    for (const file of files) {
      const previous = states.get(file);
      let version = 'missing';
      try {
        const info = await stat(file);
        version = `${info.mtimeMs}:${info.size}:${info.ino}`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          failures.push({ file, reason: error instanceof Error ? error.message : String(error) });
          continue;
        }
      }
      if (previous?.version === version) continue;
      let added: ReadonlySet<string>;
      try {
        added =
          version === 'missing'
            ? new Set()
            : new Set(options.read(JSON.parse(await readFile(file, 'utf8')), failures, file));
      } catch (error) {
        // Keep what the file gave before; try again once it changes.
        states.set(file, { version, urls: previous?.urls ?? new Set() });
        failures.push({ file, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      states.set(file, { version, urls: added });
      const stillProvided = new Set([...options.alsoProvided(), ...urls()]);
      for (const url of previous?.urls ?? []) if (!stillProvided.has(url)) options.remove(url);
    }
    return failures;
  };

  return {
    urls,
    sync: () => {
      if (files.length === 0) return Promise.resolve([]);
      syncing ??= syncOnce().finally(() => {
        syncing = undefined;
      });
      return syncing;
    },
  };
}
