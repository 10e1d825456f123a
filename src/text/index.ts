/** Shared text utilities: tokenizing, sentence splitting, token estimates and Markdown helpers. */
export { tokenize, tokenizeQuery, stem, ENGLISH_STOP_WORDS } from './tokenize.ts';
export type { TokenizeOptions } from './tokenize.ts';
export { sentenceSpans, splitSentences } from './sentences.ts';
export { estimateTokens } from './tokens.ts';
export {
  parseMarkdownBlocks,
  splitMarkdownSections,
  blockToMarkdown,
  stripInlineMarkdown,
  tableRowCells,
  tableRows,
  tableRowStatement,
  markdownToText,
} from './markdown.ts';
export type { MarkdownBlock, MarkdownBlockKind, MarkdownSection, TableRow } from './markdown.ts';
