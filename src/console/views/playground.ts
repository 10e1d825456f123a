/** The playground: ask a question with one of the organization's active keys (console.js streams it). */
import { html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import type { KeyRecord } from '../../stores/types.ts';
import { csrfField, orgPage } from './layout.ts';

/** `apiBase`: where the API is reached (the console's `publicUrl`), for the curl command; else the page's origin. */
export function playgroundView(
  paths: ConsolePaths,
  org: OrgContext,
  active: readonly KeyRecord[],
  apiBase?: string,
): Html {
  const { link } = paths;
  return orgPage(
    paths,
    org,
    'Playground',
    html`<h1>Playground</h1>
      <p class="hint">
        Searches here are real: each one spends credits of ${org.organization.name} through the selected key.
      </p>
      ${
        active.length === 0
          ? html`<p>Create an API key first on the <a href="${link('/keys')}">API keys</a> page.</p>`
          : html`<form
                id="playground"
                class="stack card"
                method="post"
                action="${link('/playground/ask')}"
                data-api-base="${apiBase ?? ''}"
              >
                ${csrfField(org)}
                <label for="pg-key">API key</label>
                <select id="pg-key" name="key">
                  ${active.map((k) => html`<option value="${k.id}" data-prefix="${k.prefix}">${k.name ?? 'unnamed'} (${k.prefix}…)</option>`)}
                </select>
                <label for="pg-question">Question</label>
                <textarea id="pg-question" name="prompt" rows="3" required maxlength="4000"></textarea>
                <label for="pg-context">Earlier messages (optional, one per line)</label>
                <textarea id="pg-context" name="context" rows="2" maxlength="20000"></textarea>
                <label for="pg-type">Response type</label>
                <select id="pg-type" name="response_type">
                  <option value="markdown">markdown</option>
                  <option value="text">text</option>
                </select>
                <label for="pg-documents">Sources</label>
                <select id="pg-documents" name="documents">
                  <option value="all">Every source</option>
                  <option value="own">Only this organization's documents</option>
                </select>
                <div class="row">
                  <button type="submit">Ask</button>
                  <button type="submit" class="secondary" formaction="${link('/research')}">
                    Research in the background
                  </button>
                  <button type="button" class="secondary" id="copy-curl">Copy as curl</button>
                </div>
              </form>
              <section aria-labelledby="answer-heading" class="card">
                <h2 id="answer-heading">Answer</h2>
                <p id="pg-status" role="status" class="muted"></p>
                <div id="pg-answer" class="answer" data-testid="answer"></div>
                <h3>Sources</h3>
                <ol id="pg-sources" class="sources" data-testid="sources"></ol>
              </section>
              <section aria-labelledby="curl-heading" class="card">
                <h2 id="curl-heading">As curl</h2>
                <p class="hint">
                  The key appears by its first characters only: put your full key in its place.
                </p>
                <pre id="pg-curl" data-testid="curl"></pre>
              </section>`
      }`,
    true,
  );
}
