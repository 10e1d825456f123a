/**
 * The console's Documents page (`/documents`): the organization's own documents — the ones its keys add
 * with `POST /v1/documents` and its searches answer from — a page at a time (`?cursor=`), a form that adds
 * one (pasted Markdown, text or HTML, or a file: console.js reads a chosen file into the form, a PDF as
 * base64), and a delete button per document that asks first. Every call goes through `engine.documents`
 * as a key of the organization, so the console sees, and is refused, exactly what the API would.
 */
import { DOCUMENT_FORMATS, type AddDocumentRequest, type DocumentView } from '../contract/documents.ts';
import { toCitewiseError } from '../errors.ts';
import { dataTable, html, type Html } from './html.ts';
import { organizationApiKey, orgPageReply } from './org-api.ts';
import { ConsoleError, redirect, type ConsoleRuntime, type OrgContext, type Reply } from './runtime.ts';
import { csrfField } from './views/layout.ts';

/** Documents on one page of the list. */
const PAGE_SIZE = 20;

const page = (rt: ConsoleRuntime, org: OrgContext, body: Html) =>
  orgPageReply(
    rt,
    org,
    'Documents',
    html`<h1>Documents</h1>
      ${body}`,
  );

/** An API failure as the console's error page: the API's status and description, a 5xx as it is. */
function consoleError(thrown: unknown, notFound = 'This document does not exist.'): never {
  const error = toCitewiseError(thrown);
  if (error.status >= 500) throw thrown;
  if (error.status === 404) throw new ConsoleError(404, notFound);
  throw new ConsoleError(error.status, error.description);
}

function kilobytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function documentRow(rt: ConsoleRuntime, org: OrgContext, document: DocumentView): Html {
  const title = document.title || document.url;
  return html`<tr data-testid="document-row">
    <td>${title}</td>
    <td class="wrap"><a href="${document.url}" rel="noopener noreferrer nofollow">${document.url}</a></td>
    <td>${kilobytes(document.bytes)}</td>
    <td>${document.created_at.slice(0, 16).replace('T', ' ')}</td>
    <td>
      <form
        method="post"
        action="${rt.link(`/documents/${document.id}/delete`)}"
        data-confirm="${`Delete “${title}”? Searches stop finding it at once.`}"
      >
        ${csrfField(org)}
        <button type="submit" class="secondary">Delete</button>
      </form>
    </td>
  </tr>`;
}

function addForm(rt: ConsoleRuntime, org: OrgContext): Html {
  const formats = DOCUMENT_FORMATS.filter((format) => format !== 'pdf');
  return html`<section class="card stack" aria-labelledby="add-heading">
    <h2 id="add-heading">Add a document</h2>
    <form method="post" action="${rt.link('/documents')}" class="stack" data-document-form>
      ${csrfField(org)}
      <label
        >File (Markdown, text, HTML or PDF)
        <input type="file" accept=".md,.markdown,.txt,.html,.htm,.pdf" data-document-file />
      </label>
      <label>Title <input name="title" maxlength="500" autocomplete="off" /></label>
      <label
        >Format
        <select name="format">
          ${formats.map((format) => html`<option value="${format}">${format}</option>`)}
          <option value="pdf" hidden>pdf</option>
        </select>
      </label>
      <label
        >Content
        <textarea name="content" rows="8" required placeholder="Paste Markdown, text or HTML"></textarea>
      </label>
      <p class="hint">
        At most 1 MiB. HTML and PDF are read as web pages are (navigation and boilerplate dropped).
      </p>
      <button type="submit">Add document</button>
    </form>
  </section>`;
}

/** `GET /documents`: the organization's documents, a page at a time, and the form that adds one. */
export async function documentsPage(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key)
    return page(
      rt,
      org,
      html`<p>Create an API key first on the <a href="${rt.link('/keys')}">API keys</a> page.</p>`,
    );
  const cursor = new URLSearchParams(org.request.query ?? '').get('cursor') ?? undefined;
  const listed = await rt.engine.documents
    .list({ apiKey: key, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) })
    .catch((thrown: unknown) =>
      consoleError(thrown, 'This service keeps no documents of its own (it has no document index).'),
    );
  const paging = html`<p class="paging">
    ${cursor ? html`<a href="${rt.link('/documents')}">First page</a>` : ''}
    ${
      listed.next_cursor
        ? html`<a href="${rt.link(`/documents?cursor=${encodeURIComponent(listed.next_cursor)}`)}"
            >Next page</a
          >`
        : ''
    }
  </p>`;
  return page(
    rt,
    org,
    html`<p class="hint">
        Documents of ${org.organization.name}: its searches answer from them (with
        <code>"documents": "own"</code>, from them alone); no other organization sees them. Keys add them with
        <code>POST /v1/documents</code>.
      </p>
      ${dataTable(
        ['Title', 'URL cited', 'Size', 'Added (UTC)', { hidden: 'Delete' }],
        listed.data.map((document) => documentRow(rt, org, document)),
        cursor ? 'No more documents.' : 'No documents yet.',
      )}
      ${paging} ${addForm(rt, org)}`,
  );
}

/** `POST /documents`: adds the pasted (or read) document. */
export async function addDocument(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key) throw new ConsoleError(400, 'Create an API key first.');
  const title = (org.form.get('title') ?? '').trim();
  const format = org.form.get('format') ?? 'markdown';
  await rt.engine.documents
    .add(
      {
        content: org.form.get('content') ?? '',
        format: format as AddDocumentRequest['format'],
        ...(title ? { title } : {}),
      },
      { apiKey: key },
    )
    .catch((thrown: unknown) => consoleError(thrown));
  return redirect(rt, '/documents');
}

/** `POST /documents/{id}/delete`. */
export async function deleteDocument(rt: ConsoleRuntime, org: OrgContext, id: string): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key) throw new ConsoleError(400, 'Create an API key first.');
  await rt.engine.documents.remove(id, { apiKey: key }).catch((thrown: unknown) => consoleError(thrown));
  return redirect(rt, '/documents');
}
