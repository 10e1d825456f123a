/**
 * A small web site on 127.0.0.1 for crawler tests, reached as `http://site.test:<port>` through a fake
 * resolver (only that name is allowed to be private). It has a robots.txt that disallows /private/, link
 * cycles, an off-origin link, a redirect, a 404, a noindex page, a PDF, a binary link, a deep chain of
 * pages, and sitemaps (an index, a urlset, a gzipped urlset).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { HostResolver } from '../../src/pipeline/fetch/index.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { tinyPdf } from '../support/pdf.ts';

export const SITE_HOST = 'site.test';
export const OTHER_HOST = 'other.test';

function page(title: string, text: string, links: readonly string[] = [], head = ''): string {
  return `<!doctype html><html><head><title>${title}</title>${head}</head><body>
<nav>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav>
<article><h1>${title}</h1><p>${text}</p><p>This paragraph is here so that the article has enough text to be
recognised as the main content of the page by the extractor, which looks for runs of prose.</p></article>
</body></html>`;
}

export interface SiteOptions {
  /** Text of the home page (changed between runs to test updates). */
  homeText?: string;
  /** Paths answering 404 (to test removal). */
  gone?: ReadonlySet<string>;
}

export interface Site {
  readonly server: LoopbackServer;
  readonly origin: string;
  url(path: string): string;
  /** Requested paths (without query), robots.txt included. */
  readonly paths: readonly string[];
  /** Host headers seen. */
  readonly hosts: ReadonlySet<string>;
  options: SiteOptions;
  close(): Promise<void>;
}

export const resolver: HostResolver = async (hostname) => {
  if (hostname === SITE_HOST || hostname === OTHER_HOST) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** Starts the site. */
export async function startSite(initial: SiteOptions = {}): Promise<Site> {
  const paths: string[] = [];
  const hosts = new Set<string>();
  let origin = '';
  const site = { options: initial };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    paths.push(url.pathname);
    hosts.add((req.headers.host ?? '').replace(/:\d+$/, ''));
    const send = (
      status: number,
      type: string,
      body: string | Uint8Array,
      headers: Record<string, string> = {},
    ) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    const html = (body: string) => send(200, 'text/html; charset=utf-8', body);
    if (site.options.gone?.has(url.pathname)) return send(404, 'text/plain', 'gone');
    switch (url.pathname) {
      case '/robots.txt':
        return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
      case '/':
        return html(
          page('Home of the aardvark society', site.options.homeText ?? 'Aardvarks dig burrows at night.', [
            '/a',
            '/b',
            '/a#section',
            '/b?utm_source=newsletter',
            '/private/secret',
            `http://${OTHER_HOST}:${new URL(origin).port}/offsite`,
            '/report.pdf',
            '/logo.png',
            '/redirect',
            '/missing',
            '/noindex',
            'mailto:someone@example.com',
          ]),
        );
      case '/a':
        return html(page('Page A about badgers', 'Badgers live in setts.', ['/', '/b', '/deep/1']));
      case '/b':
        return html(page('Page B about capybaras', 'Capybaras are the largest rodents.', ['/a', '/']));
      case '/deep/1':
        return html(page('Deep one', 'Dolphins sleep with one eye open.', ['/deep/2']));
      case '/deep/2':
        return html(page('Deep two', 'Echidnas lay eggs.', ['/deep/3']));
      case '/deep/3':
        return html(page('Deep three', 'Flamingos are pink from their food.', ['/deep/4']));
      case '/deep/4':
        return html(page('Deep four', 'Giraffes have long necks.'));
      case '/private/secret':
        return html(page('Secret', 'Nobody should index this hedgehog secret.'));
      case '/offsite':
        return html(page('Offsite', 'Off-origin page about iguanas.'));
      case '/redirect':
        res.writeHead(301, { location: '/b' });
        return void res.end();
      case '/noindex':
        return html(
          page(
            'Not for indexes',
            'Jaguars are not to be indexed here.',
            ['/from-noindex'],
            '<meta name="robots" content="noindex">',
          ),
        );
      case '/from-noindex':
        return html(page('Linked from noindex', 'Koalas sleep most of the day.'));
      case '/report.pdf':
        return send(200, 'application/pdf', tinyPdf(['Lemurs live only on Madagascar.'], 'Lemur report'));
      case '/logo.png':
        return send(200, 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
      case '/sitemap.xml':
        return send(
          200,
          'application/xml',
          `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap>
  <sitemap><loc>${origin}/sitemap-more.xml.gz</loc></sitemap>
</sitemapindex>`,
        );
      case '/sitemap-pages.xml':
        return send(
          200,
          'text/xml',
          `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${origin}/s1</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc>${origin}/private/secret</loc></url>
  <url><loc>http://${OTHER_HOST}:${new URL(origin).port}/offsite</loc></url>
</urlset>`,
        );
      case '/sitemap-more.xml.gz':
        return send(
          200,
          'application/gzip',
          gzipSync(
            `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/s2?a=1&amp;b=2</loc></url></urlset>`,
          ),
        );
      case '/s1':
        return html(page('Sitemap page one', 'Manatees are gentle sea cows.', ['/s3']));
      case '/s2':
        return html(page('Sitemap page two', 'Narwhals have a long tusk.'));
      case '/s3':
        return html(page('Never linked', 'Ocelots are wild cats.'));
      default:
        return send(404, 'text/plain', 'not found');
    }
  };

  const server = await startLoopbackServer(handler);
  origin = `http://${SITE_HOST}:${server.port}`;
  return {
    server,
    origin,
    url: (path) => `${origin}${path}`,
    paths,
    hosts,
    get options() {
      return site.options;
    },
    set options(value: SiteOptions) {
      site.options = value;
    },
    close: () => server.close(),
  };
}
