/**
 * Looks at single WCXB pages: what our extractor kept that the ground truth does not have, and what it
 * missed. For working on extraction rules; the figures of record come from `bench/extract.ts`.
 *
 *   node bench/extract-page.ts [--data DIR] [--type TYPE] ID [ID ...]
 *
 * Each line of our text whose words are mostly absent from the truth is printed with `+`, each line of the
 * truth mostly absent from our text with `-`.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { extractHtml } from '../src/pipeline/extract/html.ts';
import { decodeBytes } from '../src/pipeline/extract/decode.ts';
import { PAGE_TYPES, type PageType } from '../src/pipeline/extract/page-type.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import { loadWcxbPages, wordF1, wordTokens } from './lib/wcxb.ts';

const { values, positionals } = parseArgs({
  options: { ...DATA_OPTION, type: { type: 'string' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('Give one or more WCXB page ids, e.g. node bench/extract-page.ts 0583');
  process.exit(2);
}
const forcedType = values.type as PageType | undefined;
if (forcedType && !PAGE_TYPES.includes(forcedType)) {
  console.error(`Unknown page type ${forcedType}; known: ${PAGE_TYPES.join(', ')}.`);
  process.exit(2);
}
const dir = join(resolveDatasetsDir(values.data, ['wcxb-dev']), 'wcxb-dev');
const wanted = new Set(positionals);
const pages = loadWcxbPages(dir).filter((page) => wanted.has(page.id));

/** Lines of `text` whose words are mostly missing from `other`. */
function linesMostlyAbsent(text: string, other: string): string[] {
  const available = new Map<string, number>();
  for (const word of wordTokens(other)) available.set(word, (available.get(word) ?? 0) + 1);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => {
      const words = wordTokens(line);
      if (words.length === 0) return false;
      const found = words.filter((word) => available.has(word)).length;
      return found < words.length / 2;
    });
}

for (const page of pages) {
  const html = decodeBytes(page.html, { sniffMeta: true }).text;
  const output = await extractHtml(html, { url: page.url, ...(forcedType ? { pageType: forcedType } : {}) });
  const text = output?.text ?? '';
  const score = wordF1(page.truth, text);
  console.log(
    `\n## ${page.id} ${page.url}\nlabelled ${page.pageType}, read as ${output?.pageType ?? 'null'}: F1 ${score.f1.toFixed(3)} (P ${score.precision.toFixed(3)}, R ${score.recall.toFixed(3)})`,
  );
  for (const line of linesMostlyAbsent(text, page.truth)) console.log(`+ ${line.slice(0, 160)}`);
  for (const line of linesMostlyAbsent(page.truth, text)) console.log(`- ${line.slice(0, 160)}`);
}
