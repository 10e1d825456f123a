/**
 * The first key of `citewise serve`: written to `<data dir>/first-key.txt` (readable only by its owner) and
 * shown on the terminal only when stderr is one, so the key never lands in a log collected from a pipe.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Name of the file, inside the data directory, that holds the first key. */
export const FIRST_KEY_FILE = 'first-key.txt';

/** Where the first key of a data directory is written. */
export function firstKeyPath(dataDir: string): string {
  return join(dataDir, FIRST_KEY_FILE);
}

/** Writes the first key to its file, readable only by its owner (mode 0600); returns the file. */
export async function writeFirstKey(dataDir: string, key: string): Promise<string> {
  const file = firstKeyPath(dataDir);
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  // `mode` applies only to a new file: an old one keeps its permissions unless set again.
  await chmod(file, 0o600);
  return file;
}

/** What the first-start notice says. */
export interface FirstKeyNotice {
  readonly key: string;
  readonly accountId: string;
  readonly credits: number;
  /** The file holding the key. */
  readonly file: string;
  /** Where the service listens, for the example command. */
  readonly baseUrl: string;
}

/**
 * The first-start notice, framed. It holds the key only for a terminal (`showKey`); otherwise stderr may be
 * a collected log, so it names the file instead.
 */
export function firstKeyText(notice: FirstKeyNotice, showKey: boolean): string {
  const lines = [
    `First start: created account ${notice.accountId} with ${notice.credits} credits.`,
    ...(showKey
      ? ['Its API key (also in the file below; store it, then delete the file):', '', `  ${notice.key}`, '']
      : ['Its API key is in this file, readable only by you (store the key, then delete the file):']),
    `  ${notice.file}`,
    'Try it:',
    `  curl -H "Authorization: Bearer $(cat ${notice.file})" ${notice.baseUrl}/v1/balance`,
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return `\n${rule}\n${lines.map((line) => `| ${line.padEnd(width)} |`).join('\n')}\n${rule}\n\n`;
}
