/** Plain text of the HTML fragments providers put in titles and snippets (highlight markup, entities). */
import { Parser } from 'htmlparser2';

/**
 * Plain text of an HTML fragment (highlight markup such as `<strong>` removed, entities decoded, runs of
 * whitespace made one space): its texts as htmlparser2 reports them, as a DOM's `textContent` joins them.
 */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return html.replace(/\s+/g, ' ').trim();
  let text = '';
  const parser = new Parser(
    {
      ontext(data) {
        text += data;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true },
  );
  parser.end(html);
  return text.replace(/\s+/g, ' ').trim();
}
