import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArticles, loadDevQuestions, type Article, type Question } from '../../bench/qa/corpus.ts';
import { createSquadWeb, firstSentence, LAYOUTS, type SquadWeb } from '../../bench/qa/squad-web.ts';
import { escapeHtml } from '../../src/text/html-escape.ts';
import { FIXTURE_DATASETS } from './datasets.ts';

const TITLES = [
  'Super_Bowl_50',
  'Warsaw',
  'Normans',
  'Sky_(United_Kingdom)',
  'Nikola_Tesla',
  'Computational_complexity_theory',
];

describe('local SQuAD web', () => {
  let articles: Article[];
  let questions: Question[];
  let web: SquadWeb;

  beforeAll(async () => {
    articles = loadArticles({ datasetsDir: FIXTURE_DATASETS, train: false, titles: TITLES });
    questions = loadDevQuestions(FIXTURE_DATASETS).filter((q) => TITLES.includes(q.title));
    web = await createSquadWeb({ articles, seed: 7 });
  });
  afterAll(async () => {
    await web.close();
  });

  it('loads only the requested articles', () => {
    expect(articles.map((a) => a.title).sort()).toEqual([...TITLES].sort());
    for (const title of TITLES) expect(questions.filter((q) => q.title === title).length).toBeGreaterThan(0);
  });

  it('serves each article with every gold answer as an exact substring of the page text', async () => {
    for (const title of TITLES) {
      const response = await fetch(web.urlFor(title));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      const html = await response.text();
      const { document } = parseHTML(html);
      const text = document.body.textContent ?? '';
      const article = articles.find((a) => a.title === title)!;
      for (const paragraph of article.paragraphs) expect(text).toContain(paragraph);
      for (const question of questions.filter((q) => q.title === title)) {
        for (const answer of question.answers) {
          expect(text).toContain(answer);
          expect(html).toContain(escapeHtml(answer));
        }
      }
      expect(document.querySelector('h1')?.textContent).toBe(title.replaceAll('_', ' '));
    }
  });

  it('wraps the article in boilerplate: cookie banner, nav with search form, related sidebar, trending, comments, footer', async () => {
    const html = await (await fetch(web.urlFor('Warsaw'))).text();
    const { document } = parseHTML(html);
    expect(document.querySelector('.cookie-banner')?.textContent).toMatch(/cookies/i);
    expect(document.querySelector('header nav a')).not.toBeNull();
    expect(document.querySelector('header form input[name="q"]')).not.toBeNull();
    const related = [...document.querySelectorAll('.related-articles li')];
    expect(related.length).toBeGreaterThanOrEqual(5);
    expect(related.length).toBeLessThanOrEqual(10);
    for (const item of related) {
      const href = item.querySelector('a')!.getAttribute('href')!;
      const otherTitle = decodeURIComponent(new URL(href).pathname.slice('/wiki/'.length));
      expect(otherTitle).not.toBe('Warsaw');
      const other = articles.find((a) => a.title === otherTitle)!;
      // The teaser is the other article's first sentence (HTML-decoded by the parser).
      expect(other.paragraphs[0]).toContain(item.querySelector('.teaser')!.textContent.replace(/…$/, ''));
    }
    expect(document.querySelectorAll('.trending li').length).toBe(5);
    expect(document.querySelectorAll('.comments .comment').length).toBeGreaterThanOrEqual(2);
    expect(document.querySelector('footer')?.textContent).toContain(
      'Creative Commons Attribution-ShareAlike 4.0',
    );
  });

  it('uses several layouts, some with the article after the boilerplate in the DOM', () => {
    const layouts = new Set(Array.from({ length: 60 }, (_, i) => web.layoutOf(`Title_${i}`)));
    expect([...layouts].sort()).toEqual([...LAYOUTS].sort());
    for (const title of TITLES) {
      const html = web.render(title)!;
      const sidebarAt = html.indexOf('class="sidebar related-articles"');
      const articleAt = html.indexOf('<h1');
      if (web.layoutOf(title) === 'article-first') expect(articleAt).toBeLessThan(sidebarAt);
      else expect(sidebarAt).toBeLessThan(articleAt);
    }
  });

  it('renders deterministically for a seed', async () => {
    const again = await createSquadWeb({ articles, seed: 7 });
    try {
      for (const title of TITLES) {
        const first = web.render(title)!.replaceAll(web.origin, 'ORIGIN');
        const second = again.render(title)!.replaceAll(again.origin, 'ORIGIN');
        expect(second).toBe(first);
      }
    } finally {
      await again.close();
    }
  });

  it('uses the related() hint for the sidebar and answers 404 for unknown pages', async () => {
    const hinted = await createSquadWeb({ articles, related: () => ['Normans', 'Warsaw', 'Nikola_Tesla'] });
    try {
      const { document } = parseHTML(hinted.render('Warsaw')!);
      const links = [...document.querySelectorAll('.related-articles a')].map((a) => a.textContent);
      expect(links.slice(0, 2)).toEqual(['Normans', 'Nikola Tesla']);
      expect((await fetch(`${hinted.origin}/wiki/No_such_page`)).status).toBe(404);
      expect(await (await fetch(`${hinted.origin}/robots.txt`)).text()).toContain('Allow: /');
    } finally {
      await hinted.close();
    }
  });

  it('escapes HTML and cuts teasers at the first sentence', () => {
    expect(escapeHtml(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&#39;');
    expect(firstSentence('Warsaw is the capital of Poland. It has 1.7 million people.')).toBe(
      'Warsaw is the capital of Poland.',
    );
  });

  it('can merge HotpotQA intro pages (one per title, sentences joined)', () => {
    const merged = loadArticles({
      datasetsDir: FIXTURE_DATASETS,
      train: false,
      hotpot: true,
      titles: ['Warsaw', 'Ouvrage_Simserhof'],
    });
    expect(merged.map((a) => a.split)).toEqual(['dev', 'hotpot']);
    expect(merged[1]!.paragraphs[0]).toMatch(/^Ouvrage Simserhof is a "gros ouvrage" of the Maginot Line/);
  });

  it('refuses a web with fewer than two articles', async () => {
    await expect(createSquadWeb({ articles: articles.slice(0, 1) })).rejects.toThrow(RangeError);
  });
});
