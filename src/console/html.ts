/** Server-rendered HTML with escaping by default: every interpolated value is text unless it is `Html`. */
import { escapeHtml } from '../text/html-escape.ts';

/** Markup that is already safe (built by {@link html}). */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`; nested `html` results are kept as markup. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new Html(out);
}

/** A column header; `hidden` ones are read by screen readers only (e.g. the actions column). */
export type Column = string | { readonly hidden: string };

/**
 * A table of `rows` (each an `html\`<tr>…</tr>\``) under `columns`, in a horizontally scrollable wrapper; with
 * no rows, `empty` as a paragraph instead (or the bare table when `empty` is not given).
 */
export function dataTable(columns: readonly Column[], rows: readonly Html[], empty?: string): Html {
  if (rows.length === 0 && empty !== undefined) return html`<p>${empty}</p>`;
  const headers = columns.map((c) =>
    typeof c === 'string'
      ? html`<th scope="col">${c}</th>`
      : html`<th scope="col"><span class="visually-hidden">${c.hidden}</span></th>`,
  );
  // Focusable, so that a keyboard can scroll a table wider than a phone's screen.
  return html`<div class="table-wrap" tabindex="0">
    <table>
      <thead>
        <tr>
          ${headers}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
