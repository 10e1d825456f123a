/* global document, window, navigator, Element, FormData, location, fetch, TextDecoderStream, setTimeout */
// The console's only script: copy buttons and the playground. No inline script anywhere (CSP).
// Untrusted text (answers, sources) is rendered by marked, then sanitised by DOMPurify: no script, no
// event handler, no javascript: link, no image, and every link gets rel="noopener noreferrer nofollow".
'use strict';

function copyText(text, button) {
  const done = () => {
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = label), 1500);
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, () => {});
  else {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
    done();
  }
}

// Forms that undo something (revoking a key) ask first; without the script they submit at once.
document.addEventListener('submit', (event) => {
  const form = event.target instanceof Element ? event.target.closest('form[data-confirm]') : null;
  if (form && !window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
});

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (source) copyText(source.textContent.trim(), button);
});

const SAFE_URL = /^https?:\/\//i;

function sanitise(markup) {
  const purify = window.DOMPurify;
  if (!purify || !purify.isSupported) return null;
  if (!purify.__citewiseHook) {
    purify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        const href = node.getAttribute('href') || '';
        if (!SAFE_URL.test(href)) node.removeAttribute('href');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
        node.setAttribute('target', '_blank');
      }
    });
    purify.__citewiseHook = true;
  }
  return purify.sanitize(markup, {
    FORBID_TAGS: [
      'img',
      'picture',
      'video',
      'audio',
      'source',
      'style',
      'form',
      'input',
      'button',
      'iframe',
      'object',
      'embed',
      'svg',
      'math',
    ],
    FORBID_ATTR: ['style', 'srcset', 'src'],
    ALLOWED_URI_REGEXP: /^https?:\/\//i,
  });
}

// Every answer the console shows goes through here: the playground's, and a research job's (its page).
// Returns whether it was rendered as Markdown (else it is shown as text).
function renderAnswer(element, text, type) {
  const markup =
    type === 'markdown' && window.marked ? window.marked.parse(text, { async: false, gfm: true }) : null;
  const clean = markup === null ? null : sanitise(markup);
  if (clean === null) element.textContent = text;
  else element.innerHTML = clean;
  return clean !== null;
}

function renderSources(list, sources) {
  list.replaceChildren(
    ...sources.map((url) => {
      const item = document.createElement('li');
      if (SAFE_URL.test(url)) {
        const link = document.createElement('a');
        link.href = url;
        link.textContent = url;
        link.rel = 'noopener noreferrer nofollow';
        link.target = '_blank';
        item.append(link);
      } else item.textContent = url;
      return item;
    }),
  );
}

function playground(form) {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const status = document.getElementById('pg-status');
  const answer = document.getElementById('pg-answer');
  const sources = document.getElementById('pg-sources');
  const curl = document.getElementById('pg-curl');
  // The service's public URL when the console has one (never what the address bar shows behind a proxy).
  const apiBase = form.getAttribute('data-api-base') || location.origin;
  const fields = () => {
    const data = new FormData(form);
    return {
      key: String(data.get('key')),
      prompt: String(data.get('prompt') || ''),
      context: String(data.get('context') || ''),
      response_type: String(data.get('response_type') || 'markdown'),
      documents: String(data.get('documents') || 'all'),
    };
  };
  const curlText = () => {
    const f = fields();
    const select = form.querySelector('select[name="key"]');
    const prefix = select.selectedOptions[0] ? select.selectedOptions[0].getAttribute('data-prefix') : 'cw_';
    const context = f.context
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((content) => ({ role: 'user', content }));
    const body = JSON.stringify({
      prompt: f.prompt,
      ...(context.length ? { context } : {}),
      response_type: f.response_type,
      ...(f.documents === 'own' ? { documents: 'own' } : {}),
    });
    const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
    return [
      `curl -sS ${quote(`${apiBase}/v1/search`)}`,
      `  -H ${quote(`Authorization: Bearer ${prefix}…`)}`,
      `  -H 'Content-Type: application/json'`,
      `  -d ${quote(body)}`,
    ].join(' \\\n');
  };
  const updateCurl = () => (curl.textContent = curlText());
  form.addEventListener('input', updateCurl);
  updateCurl();
  document.getElementById('copy-curl').addEventListener('click', (event) => {
    updateCurl();
    copyText(curl.textContent, event.currentTarget);
  });

  form.addEventListener('submit', async (event) => {
    // "Research in the background" posts the form to /research (a page, not a stream).
    if (event.submitter && event.submitter.hasAttribute('formaction')) return;
    event.preventDefault();
    const f = fields();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    status.textContent = 'Searching…';
    answer.textContent = '';
    sources.replaceChildren();
    let text = '';
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify(f),
        credentials: 'same-origin',
      });
      if (!response.ok || !response.body) throw new Error(`The console answered ${response.status}.`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const line = chunk.split('\n').find((l) => l.startsWith('data: '));
          if (!line) continue;
          const message = JSON.parse(line.slice(6));
          if (message.type === 'sources') renderSources(sources, message.sources);
          else if (message.type === 'delta') {
            text += message.text;
            renderAnswer(answer, text, f.response_type);
            status.textContent = 'Answering…';
          } else if (message.type === 'done') {
            renderAnswer(answer, message.body.answer, message.body.response_type);
            renderSources(sources, message.body.sources);
            status.textContent = `Done in ${message.body.response_time} ms.`;
          } else if (message.type === 'error') {
            status.textContent = `Error: ${message.error.description}`;
          }
        }
      }
    } catch (error) {
      status.textContent = `Error: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}

document.addEventListener('DOMContentLoaded', () => {
  const form = document.getElementById('playground');
  if (form) playground(form);
  // An answer written into the page as text (a research job's): rendered as the playground renders it. As
  // text (no script, or a text answer) it keeps its line breaks (class "plain").
  for (const answer of document.querySelectorAll('[data-answer-type]')) {
    const type = answer.getAttribute('data-answer-type');
    if (renderAnswer(answer, answer.textContent, type)) answer.classList.remove('plain');
  }
  // A running research job's page shows its progress: read it again every few seconds until it ends.
  const refreshing = document.querySelector('[data-refresh]');
  if (refreshing)
    setTimeout(() => location.reload(), Number(refreshing.getAttribute('data-refresh')) || 2000);
});

// The Documents page: a chosen file is read into the form (a PDF as base64), which is then sent as is.
// Without the script, the content is pasted.
const FILE_FORMATS = {
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  html: 'html',
  htm: 'html',
  pdf: 'pdf',
};

function base64Of(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return window.btoa(binary);
}

document.addEventListener('change', (event) => {
  const input = event.target instanceof Element ? event.target.closest('[data-document-file]') : null;
  const file = input && input.files && input.files[0];
  if (!file) return;
  const form = input.closest('form');
  const extension = (file.name.split('.').pop() || '').toLowerCase();
  const format = FILE_FORMATS[extension] || 'text';
  const content = form.elements.namedItem('content');
  form.elements.namedItem('format').value = format;
  const title = form.elements.namedItem('title');
  if (!title.value) title.value = file.name.replace(/\.[^.]+$/, '');
  const read = format === 'pdf' ? file.arrayBuffer().then(base64Of) : file.text();
  read.then((text) => {
    content.value = text;
    // Base64 is not for reading or editing: it is sent as read.
    content.readOnly = format === 'pdf';
  });
});
