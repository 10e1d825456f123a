/**
 * The "local web" of the QA benchmark: one HTML page per article on 127.0.0.1, at
 * `/wiki/<encodeURIComponent(title)>`, wrapped in realistic boilerplate so that extraction matters — a cookie
 * banner, a header nav with a search form, a sidebar of 5–10 related articles with the first sentence of
 * each as a teaser (lexical distractors), a "trending" list, a comments block and a CC BY-SA footer.
 * Three layouts vary where the main content sits in the DOM. The article text is verbatim and only
 * HTML-escaped, so gold answers stay exact substrings of the page text. Every choice is seeded by the
 * title: the same article always renders the same bytes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOnLoopback } from '../../test/support/loopback-server.ts';
import { escapeHtml } from '../../src/text/html-escape.ts';
import { articlePath, createRandom, hashString, type Article, type Random } from './corpus.ts';

/** Page layouts; `sidebar-first` and `trending-first` put boilerplate before the article in the DOM. */
export const LAYOUTS = ['sidebar-first', 'article-first', 'trending-first'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Options of {@link createSquadWeb}. */
export interface SquadWebOptions {
  /** The pages to serve (at least 2, so that sidebars have other articles). */
  readonly articles: readonly Article[];
  /**
   * Titles of articles related to `title`, most related first (e.g. a BM25 search for the title); the
   * sidebar uses 5–10 of them that are not the page itself. @default a seeded random choice
   */
  readonly related?: (title: string) => readonly string[];
  /** Seed mixed into every page's choices. @default 1 */
  readonly seed?: number;
  /** @default 0 (any free port) */
  readonly port?: number;
  /**
   * Pages answer like the real web instead of at once (see {@link RealWebOptions}): each article is then
   * served from a host of its own (`<slug>.web.test`, resolve it with {@link realWebResolver}), so
   * per-host connection limits apply as they do between real sites. @default undefined (instant pages)
   */
  readonly realWeb?: RealWebOptions;
  /**
   * Spread the pages over this many hosts (`h0.web.test` … `h<N-1>.web.test`, each page always on the same
   * one; resolve them with {@link realWebResolver}): 1 is one popular site holding every result. Per-host
   * limits of the fetcher then apply as they do on the real web. @default one host per page in real-web
   * mode, else every page on `127.0.0.1`
   */
  readonly hosts?: number;
}

/** How pages answer in real-web mode. */
export interface RealWebOptions {
  /** Median time before a page's response starts, in ms (log-normal). @default 300 */
  readonly medianMs?: number;
  /** Sigma of the log-normal latency (the spread of ln(latency)). @default 0.8 */
  readonly sigma?: number;
  /** Share (0–1) of pages that accept the connection and never answer. @default 0.03 */
  readonly hangShare?: number;
}

/** Host names of real-web mode end with this; they all stand for 127.0.0.1. */
export const REAL_WEB_DOMAIN = 'web.test';

/**
 * A resolver for the page fetcher's `resolver` option: `*.web.test` → 127.0.0.1, anything else is refused
 * (the benchmark never leaves the machine).
 */
export async function realWebResolver(hostname: string): Promise<{ address: string; family: 4 }[]> {
  if (hostname === REAL_WEB_DOMAIN || hostname.endsWith(`.${REAL_WEB_DOMAIN}`)) {
    return [{ address: '127.0.0.1', family: 4 }];
  }
  throw new Error(`realWebResolver: ${hostname} is not a ${REAL_WEB_DOMAIN} host`);
}

/** Standard normal deviate from two uniforms in (0, 1] × [0, 1) (Box–Muller). */
function normalDeviate(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * What one URL does in real-web mode, drawn once from its path and the seed (the same in every run, and
 * whatever host serves the page, so runs spreading the pages over different hosts compare): hang, or
 * answer after `delayMs`.
 */
export function realWebBehaviour(
  url: string,
  seed: number,
  options: RealWebOptions = {},
): { readonly hangs: boolean; readonly delayMs: number } {
  const medianMs = options.medianMs ?? 300;
  const sigma = options.sigma ?? 0.8;
  const hangShare = options.hangShare ?? 0.03;
  // Drawn from the path, not the host or the port (a new one each run), so runs with one seed agree.
  const { pathname } = new URL(url);
  const random = createRandom(hashString(`${seed}:latency:${pathname}`));
  const hangs = random.next() < hangShare;
  const delayMs = medianMs * Math.exp(sigma * normalDeviate(1 - random.next(), random.next()));
  return { hangs, delayMs };
}

/** A running local web. */
export interface SquadWeb {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Absolute URL of an article's page. */
  urlFor(title: string): string;
  /** The HTML of an article's page (what the server sends), or `undefined` for an unknown title. */
  render(title: string): string | undefined;
  /** Layout of an article's page. */
  layoutOf(title: string): Layout;
  /** Requests served so far, by path. */
  readonly requestCount: number;
  /** Requests left unanswered on purpose so far (real-web mode). */
  readonly hungCount: number;
  /** What the web saw since it started or since the last {@link SquadWeb.resetTraffic}: its politeness figures. */
  traffic(): WebTraffic;
  /** Starts counting {@link traffic} again (between the runs of a sweep). */
  resetTraffic(): void;
  close(): Promise<void>;
}

/** The load the fetcher put on the local web: how polite it was to each site. */
export interface WebTraffic {
  /** Requests received (robots.txt included). */
  readonly requests: number;
  /** Requests for article pages. */
  readonly pageRequests: number;
  /** Most requests one host received within any one second. */
  readonly peakHostRequestsPerSecond: number;
  /** Most requests one host had open at once (hung ones included, until the client gave up). */
  readonly peakHostInFlight: number;
  /** Hosts that received requests. */
  readonly hosts: number;
  /** Most times one page was requested, and the mean over the pages requested. */
  readonly maxFetchesOfOnePage: number;
  readonly meanFetchesPerPage: number;
}

/** Counts requests per host in a sliding second and in flight, and requests per page. */
function createTrafficMeter(): {
  begin(host: string, path: string): () => void;
  traffic(): WebTraffic;
  reset(): void;
} {
  let requests = 0;
  let pageRequests = 0;
  let peakPerSecond = 0;
  let peakInFlight = 0;
  const recent = new Map<string, number[]>();
  const inFlight = new Map<string, number>();
  const perPage = new Map<string, number>();
  return {
    begin(host, path) {
      requests++;
      const now = performance.now();
      let times = recent.get(host);
      if (!times) recent.set(host, (times = []));
      times.push(now);
      let drop = 0;
      while ((times[drop] ?? now) <= now - 1000) drop++;
      if (drop > 0) times.splice(0, drop);
      peakPerSecond = Math.max(peakPerSecond, times.length);
      const open = (inFlight.get(host) ?? 0) + 1;
      inFlight.set(host, open);
      peakInFlight = Math.max(peakInFlight, open);
      if (path.startsWith('/wiki/')) {
        pageRequests++;
        perPage.set(path, (perPage.get(path) ?? 0) + 1);
      }
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
      };
    },
    traffic() {
      const counts = [...perPage.values()];
      return {
        requests,
        pageRequests,
        peakHostRequestsPerSecond: peakPerSecond,
        peakHostInFlight: peakInFlight,
        hosts: recent.size,
        maxFetchesOfOnePage: counts.length ? Math.max(...counts) : 0,
        meanFetchesPerPage: counts.length ? pageRequests / counts.length : 0,
      };
    },
    reset() {
      requests = pageRequests = peakPerSecond = peakInFlight = 0;
      recent.clear();
      perPage.clear();
      // Requests still open stay counted in flight: they are real load.
    },
  };
}

/** Host names of `--hosts N`: `h<i>.web.test`, the page's host drawn from its title and the seed. */
export function spreadHost(title: string, seed: number, hosts: number): string {
  return `h${hashString(`${seed}:spread:${title}`) % hosts}.${REAL_WEB_DOMAIN}`;
}

/**
 * The origin serving an article's page: `hosts` hosts when given, else one host per page in real-web mode,
 * else `127.0.0.1`. A pure function, so a process other than the web's can build the URLs.
 */
export function pageOrigin(
  title: string,
  options: {
    readonly seed: number;
    readonly port: number;
    readonly realWeb: boolean;
    readonly hosts?: number;
  },
): string {
  const { seed, port, hosts } = options;
  if (hosts !== undefined) return `http://${spreadHost(title, seed, hosts)}:${port}`;
  if (options.realWeb)
    return `http://s${hashString(`${seed}:host:${title}`).toString(36)}.${REAL_WEB_DOMAIN}:${port}`;
  return `http://127.0.0.1:${port}`;
}

/** `Sky_(United_Kingdom)` → `Sky (United Kingdom)`. */
export function displayTitle(title: string): string {
  return title.replaceAll('_', ' ');
}

/** First sentence of a text (simple punctuation rule; good enough for a teaser), at most 220 characters. */
export function firstSentence(text: string): string {
  const match = /^.{20,}?[.!?](?=\s+[A-Z"“(]|$)/su.exec(text);
  const sentence = (match?.[0] ?? text).trim();
  return sentence.length > 220 ? `${sentence.slice(0, 217).trimEnd()}…` : sentence;
}

const USERS = [
  'historybuff42',
  'Marta K.',
  'j_ramirez',
  'quietreader',
  'Dr. Okafor',
  'lena.w',
  'tom_h',
  'NightOwl',
];
const COMMENTS = [
  'Great read, thanks for putting this together!',
  'I visited last summer and the guide told us almost exactly this.',
  'Does anyone have a source for the second paragraph? Seems off to me.',
  'Bookmarked for my exam next week.',
  'This page needs more pictures honestly.',
  'Interesting, I always thought it was the other way around.',
  'Can someone explain the part about the early years in simpler terms?',
  'Shared this with my study group, very helpful.',
];
const NAV = ['Home', 'Topics', 'History', 'Science', 'Culture', 'Sports', 'About us', 'Contact'];

/** Starts the local web on 127.0.0.1. */
export async function createSquadWeb(options: SquadWebOptions): Promise<SquadWeb> {
  const { articles } = options;
  if (!articles || articles.length < 2) {
    throw new RangeError('createSquadWeb: articles must hold at least 2 articles');
  }
  const seed = options.seed ?? 1;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError('createSquadWeb: bad port');
  const realWeb = options.realWeb;
  const hosts = options.hosts;
  if (hosts !== undefined && !(Number.isInteger(hosts) && hosts >= 1))
    throw new RangeError('createSquadWeb: hosts must be a positive integer');
  if (realWeb) {
    const { medianMs = 300, sigma = 0.8, hangShare = 0.03 } = realWeb;
    if (!(medianMs >= 0 && Number.isFinite(medianMs)))
      throw new RangeError('createSquadWeb: realWeb.medianMs must be a finite number ≥ 0');
    if (!(sigma >= 0 && Number.isFinite(sigma)))
      throw new RangeError('createSquadWeb: realWeb.sigma must be a finite number ≥ 0');
    if (!(hangShare >= 0 && hangShare <= 1))
      throw new RangeError('createSquadWeb: realWeb.hangShare must be between 0 and 1');
  }
  let hungCount = 0;
  const timers = new Set<NodeJS.Timeout>();
  const byTitle = new Map(articles.map((article) => [article.title, article]));
  const titles = articles.map((article) => article.title);
  const cache = new Map<string, string>();
  let requestCount = 0;
  let origin = '';

  const randomFor = (title: string, salt: string): Random =>
    createRandom(hashString(`${seed}:${salt}:${title}`));
  const layoutOf = (title: string): Layout =>
    LAYOUTS[hashString(`${seed}:layout:${title}`) % LAYOUTS.length]!;

  function relatedTitles(title: string): string[] {
    const random = randomFor(title, 'related');
    const count = random.int(5, 10);
    const candidates = (options.related?.(title) ?? []).filter((t) => t !== title && byTitle.has(t));
    const chosen = [...new Set(candidates)].slice(0, count);
    for (const other of random.shuffle(titles)) {
      if (chosen.length >= count) break;
      if (other !== title && !chosen.includes(other)) chosen.push(other);
    }
    return chosen;
  }

  function render(title: string): string | undefined {
    const cached = cache.get(title);
    if (cached !== undefined) return cached;
    const article = byTitle.get(title);
    if (!article) return undefined;
    const html = renderPage(article, origin, layoutOf(title), relatedTitles(title), (t) => byTitle.get(t), {
      trending: randomFor(title, 'trending')
        .shuffle(titles.filter((t) => t !== title))
        .slice(0, 5),
      random: randomFor(title, 'comments'),
    });
    if (cache.size > 256) cache.delete(cache.keys().next().value!);
    cache.set(title, html);
    return html;
  }

  const meter = createTrafficMeter();
  const server: Server = createServer((req, res) => {
    requestCount++;
    const ended = meter.begin(
      (req.headers.host ?? '').replace(/:\d+$/, ''),
      new URL(req.url ?? '/', 'http://localhost').pathname,
    );
    res.once('close', ended);
    if (!realWeb) {
      respond(req, res);
      return;
    }
    // robots.txt answers at once: the fetcher keeps it an hour per host, so on a busy service it is almost
    // always cached, while here nearly every question meets hosts for the first time. The test is of pages.
    if (req.url?.startsWith('/robots.txt')) {
      respond(req, res);
      return;
    }
    const { hangs, delayMs } = realWebBehaviour(
      `http://${req.headers.host ?? ''}${req.url ?? '/'}`,
      seed,
      realWeb,
    );
    if (hangs) {
      hungCount++;
      return; // the connection stays open and silent until the client gives up
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond(req, res);
    }, delayMs);
    timers.add(timer);
  });
  const cacheControl = realWeb ? 'no-store' : 'max-age=3600';

  function respond(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    let html: string | undefined;
    if (path.startsWith('/wiki/')) {
      try {
        html = render(decodeURIComponent(path.slice('/wiki/'.length)));
      } catch {
        html = undefined;
      }
    }
    if (html === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': cacheControl });
    res.end(req.method === 'HEAD' ? undefined : html);
  }
  const listening = await listenOnLoopback(server, '', port);
  const listeningPort = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${listeningPort}`;
  // Real-web mode: one host per article, as pages of a search result live on different sites.
  const originFor = (title: string): string =>
    pageOrigin(title, {
      seed,
      port: listeningPort,
      realWeb: realWeb !== undefined,
      ...(hosts ? { hosts } : {}),
    });

  return {
    origin,
    urlFor: (title) => `${originFor(title)}${articlePath(title)}`,
    render,
    layoutOf,
    get requestCount() {
      return requestCount;
    },
    get hungCount() {
      return hungCount;
    },
    traffic: () => meter.traffic(),
    resetTraffic: () => meter.reset(),
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await listening.close();
    },
  };
}

interface Extras {
  readonly trending: readonly string[];
  readonly random: Random;
}

function renderPage(
  article: Article,
  origin: string,
  layout: Layout,
  related: readonly string[],
  lookup: (title: string) => Article | undefined,
  extras: Extras,
): string {
  const name = escapeHtml(displayTitle(article.title));
  const link = (title: string) => `${origin}${articlePath(title)}`;
  const cookie = `<div id="cookie-consent" class="cookie-banner" role="dialog" aria-label="Cookie consent">
  <p>We use cookies to personalise content and ads, to provide social media features and to analyse our traffic. We also share information about your use of our site with our partners.</p>
  <button class="accept">Accept all</button> <button class="reject">Reject</button> <a href="/privacy">Privacy policy</a>
</div>`;
  const header = `<header class="site-header">
  <a class="logo" href="/">Open<strong>Pedia</strong></a>
  <nav class="main-nav"><ul>${NAV.map((item) => `<li><a href="/topics/${item.toLowerCase().replace(/\s+/g, '-')}">${item}</a></li>`).join('')}</ul></nav>
  <form class="search-form" action="/search" method="get"><input type="search" name="q" placeholder="Search OpenPedia"><button type="submit">Search</button></form>
</header>`;
  const sidebar = `<aside class="sidebar related-articles">
  <h2>Related articles</h2>
  <ul>${related
    .map((title) => {
      const teaser = escapeHtml(firstSentence(lookup(title)?.paragraphs[0] ?? ''));
      return `\n    <li><a href="${link(title)}">${escapeHtml(displayTitle(title))}</a><p class="teaser">${teaser}</p></li>`;
    })
    .join('')}
  </ul>
</aside>`;
  const trending = `<section class="trending">
  <h2>Trending now</h2>
  <ol>${extras.trending.map((title) => `<li><a href="${link(title)}">${escapeHtml(displayTitle(title))}</a></li>`).join('')}</ol>
</section>`;
  const commentCount = extras.random.int(2, 5);
  const comments = `<section class="comments" id="comments">
  <h2>${commentCount} comments</h2>${Array.from({ length: commentCount }, (_, i) => {
    const user = extras.random.pick(USERS);
    const text = extras.random.pick(COMMENTS);
    const days = extras.random.int(1, 300);
    return `\n  <div class="comment" id="c${i + 1}"><span class="author">${escapeHtml(user)}</span> <time>${days} days ago</time><p>${escapeHtml(text)}</p><a href="#reply">Reply</a></div>`;
  }).join('')}
  <form class="comment-form"><textarea name="comment" placeholder="Join the discussion"></textarea><button>Post comment</button></form>
</section>`;
  const footer = `<footer class="site-footer">
  <p>Text is available under the <a href="https://creativecommons.org/licenses/by-sa/4.0/">Creative Commons Attribution-ShareAlike 4.0 License</a>. Content adapted from the Wikipedia article “${name}” via the SQuAD dataset (CC BY-SA 4.0).</p>
  <ul class="footer-links"><li><a href="/about">About</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms of use</a></li><li><a href="/contact">Contact</a></li></ul>
  <p>© 2026 OpenPedia contributors</p>
</footer>`;
  const body = article.paragraphs.map((paragraph) => `\n  <p>${escapeHtml(paragraph)}</p>`).join('');
  const main =
    layout === 'trending-first'
      ? `<div id="col-main"><div class="entry"><h1 class="entry-title">${name}</h1><div class="entry-meta">From OpenPedia, the free encyclopedia</div><div class="entry-content">${body}\n</div></div>${comments}</div>`
      : `<main id="content"><article><h1>${name}</h1><p class="byline">From OpenPedia, the free encyclopedia</p>${body}\n</article>${comments}</main>`;
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${name} — OpenPedia</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="canonical" href="${link(article.title)}">
<style>.layout{display:flex}.sidebar{order:-1;width:260px}.cookie-banner{position:fixed;bottom:0}</style>
</head><body>`;
  let layoutBody: string;
  if (layout === 'sidebar-first') {
    layoutBody = `${cookie}\n${header}\n<div class="layout">\n${sidebar}\n${main}\n${trending}\n</div>\n${footer}`;
  } else if (layout === 'article-first') {
    layoutBody = `${header}\n<div class="layout">\n${main}\n${sidebar}\n${trending}\n</div>\n${footer}\n${cookie}`;
  } else {
    layoutBody = `<div id="wrapper">\n${cookie}\n${header}\n${trending}\n<div class="layout">\n${sidebar}\n${main}\n</div>\n${footer}\n</div>`;
  }
  return `${head}\n${layoutBody}\n</body></html>\n`;
}
