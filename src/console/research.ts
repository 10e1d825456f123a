/**
 * The console's Research page: the organization's research jobs (`/research`), one job with its status,
 * steps, answer and sources (`/research/{id}`, refreshed while it runs), its cancel button, and the start
 * of a job from the playground's form (`POST /research`). Every call goes through `engine.research` as a
 * key of the organization, so the console sees exactly what the API would.
 */
import type { SearchEngine } from '../engine.ts';
import { toCitewiseError } from '../errors.ts';
import type { ProtocolResponse } from '../http/handler.ts';
import type { ResearchJob } from '../jobs/request.ts';
import type { KeyRecord } from '../stores/types.ts';
import { dataTable, html, type Html } from './html.ts';
import type { ConsoleKeyStore } from './keys.ts';

/** What the page needs of the signed-in organization. */
export interface ResearchOrg {
  readonly organization: { readonly id: string; readonly name: string };
  readonly form: URLSearchParams;
}

/** What the console lends to the Research page. */
export interface ResearchPagesDeps<Org extends ResearchOrg> {
  readonly engine: SearchEngine;
  readonly keys: ConsoleKeyStore;
  readonly link: (path: string) => string;
  page(org: Org, title: string, body: Html): ProtocolResponse;
  csrfField(org: Org): Html;
  redirect(to: string): ProtocolResponse;
  /** Throws the console's error page with this status and message. */
  fail(status: number, message: string): never;
}

const STATUS_TEXT: Readonly<Record<string, string>> = {
  queued: 'Waiting for a worker',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The Research page's handlers. */
export function createResearchPages<Org extends ResearchOrg>(deps: ResearchPagesDeps<Org>) {
  const { engine, keys, link } = deps;

  async function activeKeys(org: Org): Promise<KeyRecord[]> {
    const now = Date.now();
    return (await keys.list(org.organization.id)).filter(
      (k) => k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now),
    );
  }

  /** A short-lived key of the organization: jobs are the account's, whichever of its keys reads them. */
  async function apiKey(org: Org, keyId?: string): Promise<string | null> {
    const active = await activeKeys(org);
    const record = keyId === undefined ? active[0] : active.find((k) => k.id === keyId);
    return record ? keys.mintPlaygroundKey(record) : null;
  }

  const noKey = (org: Org) =>
    deps.page(
      org,
      'Research',
      html`<h1>Research</h1>
        <p>Create an API key first on the <a href="${link('/keys')}">API keys</a> page.</p>`,
    );

  function sourceList(sources: readonly string[]): Html {
    return html`<ol data-testid="research-sources">
      ${sources.map((url) =>
        /^https?:\/\//i.test(url)
          ? html`<li><a href="${url}" rel="noopener noreferrer nofollow">${url}</a></li>`
          : html`<li>${url}</li>`,
      )}
    </ol>`;
  }

  function stepText(step: unknown): string {
    const queries = (step as { queries?: unknown }).queries;
    if (Array.isArray(queries) && queries.every((q) => typeof q === 'string')) return queries.join(' · ');
    return JSON.stringify(step).slice(0, 300);
  }

  function jobBody(org: Org, job: ResearchJob): Html {
    const open = job.status === 'queued' || job.status === 'running';
    return html`<h1>Research</h1>
      <p><a href="${link('/research')}">All research jobs</a></p>
      <section class="card stack" aria-labelledby="job-heading" ${open ? html`data-refresh="2000"` : ''}>
        <h2 id="job-heading">${job.prompt}</h2>
        <p role="status" data-testid="research-status">
          <strong>${STATUS_TEXT[job.status] ?? job.status}</strong>
          <span class="muted"
            >· ${job.credits_used} credits used · started ${job.created_at.slice(0, 19).replace('T', ' ')}
            UTC</span
          >
        </p>
        ${job.error ? html`<p class="error" role="alert">${job.error.description}</p>` : ''}
        ${
          job.steps?.length
            ? html`<h3>Steps</h3>
                <ol data-testid="research-steps">
                  ${job.steps.map((step) => html`<li>${stepText(step)}</li>`)}
                </ol>`
            : ''
        }
        ${
          job.answer !== undefined
            ? html`<h3>Answer</h3>
                <div class="answer plain" data-testid="research-answer">${job.answer}</div>
                <h3>Sources</h3>
                ${sourceList(job.sources ?? [])}`
            : ''
        }
        ${
          open
            ? html`<form method="post" action="${link(`/research/${job.id}/cancel`)}">
                ${deps.csrfField(org)}
                <button type="submit" class="secondary">Cancel</button>
              </form>`
            : ''
        }
      </section>`;
  }

  return {
    /** `GET /research`: the organization's jobs, newest first. */
    async list(org: Org): Promise<ProtocolResponse> {
      const key = await apiKey(org);
      if (!key) return noKey(org);
      const { data } = await engine.research.list({ limit: 50 }, { apiKey: key });
      const rows = data.map(
        (job) =>
          html`<tr>
            <td>${job.created_at.slice(0, 16).replace('T', ' ')}</td>
            <td><a href="${link(`/research/${job.id}`)}">${job.prompt.slice(0, 120)}</a></td>
            <td>${STATUS_TEXT[job.status] ?? job.status}</td>
            <td>${job.credits_used}</td>
          </tr>`,
      );
      return deps.page(
        org,
        'Research',
        html`<h1>Research</h1>
          <p class="hint">
            Long questions answered in the background by API keys of ${org.organization.name}. Start one from
            the <a href="${link('/playground')}">playground</a> or with <code>POST /v1/research</code>.
          </p>
          ${dataTable(['Created (UTC)', 'Question', 'Status', 'Credits'], rows, 'No research jobs yet.')}`,
      );
    },

    /** `GET /research/{id}`: one job. */
    async detail(org: Org, id: string): Promise<ProtocolResponse> {
      const key = await apiKey(org);
      if (!key) return noKey(org);
      let job: ResearchJob;
      try {
        job = await engine.research.get(id, { apiKey: key });
      } catch (thrown) {
        if (toCitewiseError(thrown).status === 404) deps.fail(404, 'This research job does not exist.');
        throw thrown;
      }
      return deps.page(org, `Research: ${job.prompt.slice(0, 60)}`, jobBody(org, job));
    },

    /** `POST /research`: the playground's question, started as a job with the selected key. */
    async start(org: Org): Promise<ProtocolResponse> {
      const key = await apiKey(org, org.form.get('key') ?? '');
      if (!key) deps.fail(400, 'Pick an active key of this organization.');
      const responseType = org.form.get('response_type');
      try {
        const job = await engine.research.create(
          {
            prompt: org.form.get('prompt') ?? '',
            ...(responseType === 'text' || responseType === 'markdown'
              ? { response_type: responseType }
              : {}),
          },
          { apiKey: key },
        );
        return deps.redirect(`/research/${job.id}`);
      } catch (thrown) {
        const error = toCitewiseError(thrown);
        if (error.status >= 500) throw thrown;
        return deps.fail(error.status === 433 ? 402 : 400, error.description);
      }
    },

    /** `POST /research/{id}/cancel`. */
    async cancel(org: Org, id: string): Promise<ProtocolResponse> {
      const key = await apiKey(org);
      if (!key) return noKey(org);
      try {
        await engine.research.cancel(id, { apiKey: key });
      } catch (thrown) {
        if (toCitewiseError(thrown).status === 404) deps.fail(404, 'This research job does not exist.');
        throw thrown;
      }
      return deps.redirect(`/research/${id}`);
    },
  };
}
