/**
 * The console's Research page: the organization's research jobs (`/research`), one job with its status,
 * steps, answer and sources (`/research/{id}`, refreshed while it runs), its cancel button, and the start
 * of a job from the playground's form (`POST /research`). Every call goes through `engine.research` as a
 * key of the organization, so the console sees exactly what the API would.
 */
import { toCitewiseError } from '../errors.ts';
import type { ResearchJob } from '../contract/research.ts';
import { dataTable, html, type Html } from './html.ts';
import { organizationApiKey, orgPageReply } from './org-api.ts';
import { ConsoleError, redirect, type ConsoleRuntime, type OrgContext, type Reply } from './runtime.ts';
import { csrfField } from './views/layout.ts';

const STATUS_TEXT: Readonly<Record<string, string>> = {
  queued: 'Waiting for a worker',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const noKey = (rt: ConsoleRuntime, org: OrgContext) =>
  orgPageReply(
    rt,
    org,
    'Research',
    html`<h1>Research</h1>
      <p>Create an API key first on the <a href="${rt.link('/keys')}">API keys</a> page.</p>`,
  );

function sourceList(sources: readonly string[]): Html {
  return html`<ol class="sources" data-testid="research-sources">
    ${sources.map((url) =>
      /^https?:\/\//i.test(url)
        ? html`<li><a href="${url}" rel="noopener noreferrer nofollow">${url}</a></li>`
        : html`<li>${url}</li>`,
    )}
  </ol>`;
}

/**
 * A job's answer as written (white space kept), which console.js renders as the playground renders its
 * answers (`data-answer-type`: Markdown through the same marked and DOMPurify). No white space may come
 * between the tags and the answer: it would be part of the text.
 */
function answerBlock(answer: string, type: string): Html {
  const attributes = html`class="answer plain" data-testid="research-answer" data-answer-type="${type}"`;
  return html`<div ${attributes}>${answer}</div>`;
}

function stepText(step: unknown): string {
  const queries = (step as { queries?: unknown }).queries;
  if (Array.isArray(queries) && queries.every((q) => typeof q === 'string')) return queries.join(' · ');
  return JSON.stringify(step).slice(0, 300);
}

function jobBody(rt: ConsoleRuntime, org: OrgContext, job: ResearchJob): Html {
  const { link } = rt;
  const open = job.status === 'queued' || job.status === 'running';
  return html`<h1>Research</h1>
    <p><a href="${link('/research')}">All research jobs</a></p>
    <section class="card stack" aria-labelledby="job-heading" ${open ? html`data-refresh="2000"` : ''}>
      <h2 id="job-heading">${job.prompt}</h2>
      <p role="status" data-testid="research-status">
        <strong>${STATUS_TEXT[job.status] ?? job.status}</strong>
        <span class="muted"
          >· ${job.credits_used} credits used · created ${job.created_at.slice(0, 19).replace('T', ' ')}
          UTC</span
        >
      </p>
      ${job.error ? html`<p class="error" role="alert">${job.error.description}</p>` : ''}
      ${
        job.steps?.length
          ? html`<h3>Steps</h3>
              <ol class="steps" data-testid="research-steps">
                ${job.steps.map((step) => html`<li>${stepText(step)}</li>`)}
              </ol>`
          : ''
      }
      ${
        job.answer !== undefined
          ? html`<h3>Answer</h3>
              ${answerBlock(job.answer, job.response_type)}
              <h3>Sources</h3>
              ${sourceList(job.sources ?? [])}`
          : ''
      }
      ${
        open
          ? html`<form method="post" action="${link(`/research/${job.id}/cancel`)}">
              ${csrfField(org)}
              <button type="submit" class="secondary">Cancel</button>
            </form>`
          : ''
      }
    </section>`;
}

/** A 404 page for a job this organization cannot see; any other failure as it is. */
function notFound(thrown: unknown): never {
  if (toCitewiseError(thrown).status === 404)
    throw new ConsoleError(404, 'This research job does not exist.');
  throw thrown;
}

/** `GET /research`: the organization's jobs, newest first. */
export async function researchPage(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key) return noKey(rt, org);
  const { data } = await rt.engine.research.list({ limit: 50 }, { apiKey: key });
  const rows = data.map(
    (job) =>
      html`<tr>
        <td>${job.created_at.slice(0, 16).replace('T', ' ')}</td>
        <td><a href="${rt.link(`/research/${job.id}`)}">${job.prompt.slice(0, 120)}</a></td>
        <td>${STATUS_TEXT[job.status] ?? job.status}</td>
        <td>${job.credits_used}</td>
      </tr>`,
  );
  return orgPageReply(
    rt,
    org,
    'Research',
    html`<h1>Research</h1>
      <p class="hint">
        Long questions answered in the background by API keys of ${org.organization.name}. Start one from the
        <a href="${rt.link('/playground')}">playground</a> or with <code>POST /v1/research</code>.
      </p>
      ${dataTable(['Created (UTC)', 'Question', 'Status', 'Credits'], rows, 'No research jobs yet.')}`,
  );
}

/** `GET /research/{id}`: one job. */
export async function researchJobPage(rt: ConsoleRuntime, org: OrgContext, id: string): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key) return noKey(rt, org);
  const job = await rt.engine.research.get(id, { apiKey: key }).catch(notFound);
  return orgPageReply(rt, org, `Research: ${job.prompt.slice(0, 60)}`, jobBody(rt, org, job), true);
}

/** `POST /research`: the playground's question, started as a job with the selected key. */
export async function startResearch(rt: ConsoleRuntime, org: OrgContext): Promise<Reply> {
  const key = await organizationApiKey(rt, org, org.form.get('key') ?? '');
  if (!key) throw new ConsoleError(400, 'Pick an active key of this organization.');
  const responseType = org.form.get('response_type');
  try {
    const job = await rt.engine.research.create(
      {
        prompt: org.form.get('prompt') ?? '',
        ...(responseType === 'text' || responseType === 'markdown' ? { response_type: responseType } : {}),
        ...(org.form.get('documents') === 'own' ? { documents: 'own' as const } : {}),
      },
      { apiKey: key },
    );
    return redirect(rt, `/research/${job.id}`);
  } catch (thrown) {
    const error = toCitewiseError(thrown);
    if (error.status >= 500) throw thrown;
    throw new ConsoleError(error.status === 433 ? 402 : 400, error.description);
  }
}

/** `POST /research/{id}/cancel`. */
export async function cancelResearch(rt: ConsoleRuntime, org: OrgContext, id: string): Promise<Reply> {
  const key = await organizationApiKey(rt, org);
  if (!key) return noKey(rt, org);
  await rt.engine.research.cancel(id, { apiKey: key }).catch(notFound);
  return redirect(rt, `/research/${id}`);
}
