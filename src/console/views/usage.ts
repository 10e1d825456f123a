/**
 * The usage page (the balance, 30 days of searches as a chart and per key, the ledger) and the ledger as
 * CSV.
 */
import { dataTable, html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import type { KeyUsage, UsageRecord } from '../../stores/account-types.ts';
import { balanceNote, formatTime, orgPage } from './layout.ts';

/** Searches and credits of one day. */
export interface Day {
  readonly day: string;
  readonly searches: number;
  readonly credits: number;
}

/** What the usage page shows. */
export interface UsagePage {
  readonly available: number;
  /** The last 30 days, oldest first (days without searches included). */
  readonly days: readonly Day[];
  readonly perKey: readonly KeyUsage[];
  /** The newest ledger entries. */
  readonly ledger: readonly UsageRecord[];
  /** A key's name and prefix, by id. */
  readonly keyNames: ReadonlyMap<string, string>;
}

export function usageView(paths: ConsolePaths, org: OrgContext, view: UsagePage): Html {
  const { days, keyNames: names } = view;
  const totalSearches = days.reduce((sum, d) => sum + d.searches, 0);
  const totalCredits = days.reduce((sum, d) => sum + d.credits, 0);
  return orgPage(
    paths,
    org,
    'Usage',
    html`<h1>Usage</h1>
      ${balanceNote(view.available)}
      <p>
        Last 30 days:
        <strong data-testid="searches-30-days">${totalSearches}</strong>
        ${totalSearches === 1 ? 'search' : 'searches'}, ${totalCredits}
        ${totalCredits === 1 ? 'credit' : 'credits'}.
      </p>
      <section class="card" aria-labelledby="chart-heading">
        <h2 id="chart-heading">Searches and credits per day</h2>
        ${chart(days)}
      </section>
      <section aria-labelledby="per-key-heading">
        <h2 id="per-key-heading">Per key (30 days)</h2>
        ${dataTable(
          ['Key', 'Searches', 'Credits', 'Last used'],
          view.perKey.map(
            (k) =>
              html`<tr>
                <td>${names.get(k.keyId) ?? k.keyId}</td>
                <td>${k.searches}</td>
                <td>${k.credits}</td>
                <td>${formatTime(k.lastUsedAt)}</td>
              </tr>`,
          ),
          'No searches yet.',
        )}
      </section>
      <section aria-labelledby="ledger-heading">
        <h2 id="ledger-heading">Ledger</h2>
        <p><a href="${paths.link('/usage.csv')}" download>Download CSV</a> (every entry)</p>
        ${dataTable(
          ['Time', 'Entry', 'Credits', 'Key', 'Note'],
          view.ledger.map(
            (r) =>
              html`<tr>
                <td>${formatTime(r.at)}</td>
                <td>${r.kind}</td>
                <td>${signed(r)}</td>
                <td>${r.keyId ? (names.get(r.keyId) ?? r.keyId) : ''}</td>
                <td>${r.note ?? ''}</td>
              </tr>`,
          ),
          'No entries yet.',
        )}
      </section>`,
  );
}

/** The whole ledger as CSV: `time, entry, credits, key_id, key_name, note`. */
export function ledgerCsv(ledger: readonly UsageRecord[], keyNames: ReadonlyMap<string, string>): string {
  const lines = [
    ['time', 'entry', 'credits', 'key_id', 'key_name', 'note'],
    ...ledger.map((r) => [
      new Date(r.at).toISOString(),
      r.kind,
      signed(r),
      r.keyId ?? '',
      r.keyId ? (keyNames.get(r.keyId) ?? '') : '',
      r.note ?? '',
    ]),
  ];
  return lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

function signed(record: UsageRecord): string {
  if (record.kind === 'grant') return `+${record.credits}`;
  if (record.kind === 'charge') return `-${record.credits}`;
  return `0 (${record.credits} returned)`;
}

/**
 * A CSV cell, quoted, with formula-looking text defused (spreadsheets would run `=…`, `+…`, `-…`, `@…`):
 * a cell that starts with one of those, a tab or a carriage return gets a leading `'`, unless the whole
 * cell is a number (`-1`, `+1000`). `-1+HYPERLINK(…)` starts like a number but is a formula.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^[-+]?\d+(?:\.\d+)?$/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The chart's drawing size, in SVG units. */
const CHART = { width: 600, height: 140 } as const;

/** A bar chart of searches per day (SVG, no script), with the numbers in a table for screen readers. */
function chart(days: readonly Day[]): Html {
  const max = Math.max(1, ...days.map((d) => d.searches));
  const { width, height } = CHART;
  const barWidth = width / days.length;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${width} ${height}" role="img" aria-label="Searches per day over the last 30 days">
      ${days.map((d, i) => {
        const barHeight = Math.round((d.searches / max) * height);
        return html`<rect
          x="${(i * barWidth + 2).toFixed(1)}"
          y="${height - barHeight}"
          width="${(barWidth - 4).toFixed(1)}"
          height="${barHeight}"
          class="bar"
          ><title>${d.day}: ${d.searches} searches, ${d.credits} credits</title></rect
        >`;
      })}
    </svg>
    <p class="chart-axis" aria-hidden="true">
      <span>${days[0]?.day ?? ''}</span><span>${days.at(-1)?.day ?? ''}</span>
    </p>
    <details>
      <summary>Numbers per day</summary>
      ${dataTable(
        ['Day', 'Searches', 'Credits'],
        days
          .filter((d) => d.searches > 0)
          .map(
            (d) =>
              html`<tr>
                <td>${d.day}</td>
                <td>${d.searches}</td>
                <td>${d.credits}</td>
              </tr>`,
          ),
      )}
    </details>
  </figure>`;
}
