import { describe, expect, it } from 'vitest';
import { extractContent, type PageType } from '../../src/pipeline/extract/index.ts';
import { withoutInertMarkup } from '../../src/pipeline/extract/inert-markup.ts';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { mainAreaLength } from '../../src/pipeline/extract/main-area.ts';

const sentence = (topic: string): string =>
  `The ${topic} text is written in plain sentences that a reader would keep, with enough ordinary words to count.`;

function page(body: string, head = '', title = 'Test page'): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

const siteNav = `<header class="site-header"><nav><a href="/">Home</a><a href="/shop">Shop</a><a href="/about">About us</a><a href="/contact">Contact</a></nav></header>`;
const siteFooter = `<footer><p>FOOTERWORDS © Example Inc.</p><a href="/privacy">Privacy</a><a href="/terms">Terms</a></footer>`;

async function extract(html: string, url: string) {
  const result = await extractContent(html, { url, contentType: 'text/html' });
  expect(result).not.toBeNull();
  return result!;
}

describe('page types', () => {
  it('reads a forum thread whole: every post, the accepted answer, no site chrome', async () => {
    const post = (author: string, body: string, extra = '') =>
      `<div class="comment post" itemprop="comment" itemscope itemtype="https://schema.org/Comment"${extra}><span class="author">${author}</span><div class="post-body"><p>${body}</p></div></div>`;
    const html = page(
      `${siteNav}<main><h1>How do I pin a dependency version?</h1>
        ${post('alice', `QUESTIONPOST ${sentence('question')}`)}
        ${post('bob', `ANSWERPOST ${sentence('first answer')}`)}
        ${post('carol', `ACCEPTEDPOST ${sentence('accepted answer')}`, ' data-accepted="true"')}
        ${post('dave', `LATEPOST thanks, that worked.`)}
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"How do I pin a dependency version?"}</script>',
    );
    const result = await extract(html, 'https://forum.example.test/t/pin-a-version/42');
    expect(result.pageType).toBe<PageType>('forum');
    for (const word of ['QUESTIONPOST', 'ANSWERPOST', 'ACCEPTEDPOST', 'LATEPOST', 'alice', 'carol']) {
      expect(result.text).toContain(word);
    }
    expect(result.text).not.toContain('FOOTERWORDS');
    expect(result.text).not.toContain('About us');
  });

  /**
   * Extracts a forum thread of four posts written by `post`: each marker of `kept` and of `dropped`, suffixed
   * with the post's number, must stay and must go.
   */
  async function expectForumThread(
    post: (n: number) => string,
    kept: readonly string[],
    dropped: readonly string[],
  ) {
    const html = page(
      `${siteNav}<main><h1>Which keyboard?</h1>${[1, 2, 3, 4].map(post).join('')}</main>${siteFooter}`,
    );
    const result = await extract(html, 'https://forum.example.test/threads/which-keyboard.12/');
    expect(result.pageType).toBe<PageType>('forum');
    for (const n of [1, 2, 3, 4]) {
      for (const marker of kept) expect(result.text).toContain(`${marker}${n}`);
      for (const marker of dropped) expect(result.text).not.toContain(`${marker}${n}`);
    }
  }

  it('reads a post whose replies are marked only by comment classes as a forum thread, every reply kept', async () => {
    const reply = (n: number) =>
      `<li class="comment"><div class="details comment-node"><a class="person">REPLIER${n}</a><div class="comment-content"><p>REPLY${n} ${sentence(`reply ${n}`)}</p></div></div></li>`;
    const html = page(
      `${siteNav}<main><div class="post-container"><h1>Which keyboard should I buy?</h1><div class="post-text"><p>OPENINGPOST ${sentence('opening post')}</p></div></div>
        <ul class="comments">${[1, 2, 3, 4, 5].map(reply).join('')}</ul></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://community.example.test/post/21018364');
    expect(result.pageType).toBe<PageType>('forum');
    for (const marker of ['OPENINGPOST', 'REPLY1', 'REPLY5', 'REPLIER3'])
      expect(result.text).toContain(marker);
    expect(result.text).not.toContain('FOOTERWORDS');
  });

  it('drops the signature under each forum post', async () => {
    const post = (n: number) =>
      `<article class="message"><div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p></div><aside class="message-signature"><p>SIGNATURE${n} My rig: a fast computer and a quiet keyboard.</p></aside></article>`;
    await expectForumThread(post, ['POSTBODY'], ['SIGNATURE']);
  });

  it('drops the rank title beside each forum post, keeps the author', async () => {
    const post = (n: number) =>
      `<article class="message"><div class="message-user"><a class="username">AUTHOR${n}</a><h5 class="userTitle message-userTitle">RANKTITLE${n} Senior Member</h5><div class="userBanner userBanner--staff">BANNER${n} Moderator</div></div>
        <div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p></div></article>`;
    await expectForumThread(post, ['AUTHOR', 'POSTBODY'], ['RANKTITLE', 'BANNER']);
  });

  it('drops the poster statistics beside each forum post, keeps the author and the post', async () => {
    const post = (n: number) =>
      `<article class="message"><section class="message-user"><h4>AUTHOR${n}</h4>
        <dl class="pairs"><dt>Joined</dt><dd>JOINDATE${n}</dd></dl><dl class="pairs"><dt>Messages</dt><dd>MESSAGECOUNT${n}</dd></dl>
        <dl class="profile"><dd>Posts: POSTCOUNT${n}</dd><dd>Location: HOMETOWN${n}</dd></dl></section>
        <div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p></div></article>`;
    await expectForumThread(
      post,
      ['AUTHOR', 'POSTBODY'],
      ['JOINDATE', 'MESSAGECOUNT', 'POSTCOUNT', 'HOMETOWN'],
    );
  });

  it('drops the poster card, specs, link previews and board notices named by class, keeps the author and the post', async () => {
    const post = (n: number) =>
      `<article class="message"><section class="message-user"><h4>AUTHOR${n}</h4>
        <div class="message-userExtras"><dl><dt><i class="icon-calendar"></i></dt><dd>CARDVALUE${n} Jun 15, 2024</dd></dl></div>
        <div class="MessageCard__user-details">CARDCOUNT${n} 2,994 posts · Joined 2021</div></section>
        <div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p>
        <aside class="onebox"><article class="onebox-body"><h3>LINKPREVIEW${n} Release schedule</h3><p>The linked page describes its own release schedule at length.</p></article></aside></div>
        <ul class="ipsSystemSpecs" id="systemSpecs_${n}_menu"><li>SPECS${n} Motherboard: a board with many ports</li></ul></article>
        ${n === 1 ? '<ul class="notices"><li class="notice">NOTICE1 Members are reminded to read the rules.</li></ul>' : ''}`;
    await expectForumThread(post, ['AUTHOR', 'POSTBODY'], ['CARDVALUE', 'CARDCOUNT', 'SPECS', 'LINKPREVIEW']);
    const html = page(
      `<main>${post(1)}${post(2)}<div class="postbit"><p>POSTBODY3 Thanks!</p><div class="post-signature"><p>${sentence('long signature')} ${sentence('signature links')}</p><p>SIGNATURE3</p></div></div></main>`,
    );
    const result = await extract(html, 'https://forum.example.test/threads/which-keyboard.12/');
    expect(result.text).not.toContain('NOTICE1');
    // A long signature under a one-line post is still a signature.
    expect(result.text).toContain('POSTBODY3');
    expect(result.text).not.toContain('SIGNATURE3');
  });

  it('drops the lists of other threads beside a forum thread ("Similar threads")', async () => {
    const post = (n: number) =>
      `<article class="message"><h4>AUTHOR${n}</h4><div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p></div></article>
      ${n === 4 ? `<div class="block"><h3 class="block-header">Similar threads</h3><div class="block-body">${[1, 2, 3, 4].map((m) => `<div class="item"><a href="/threads/${m}">OTHERTHREAD${m} Best mechanical keyboard under $100?</a><span>Replies: 12</span></div>`).join('')}</div></div>` : ''}`;
    await expectForumThread(post, ['AUTHOR', 'POSTBODY'], ['OTHERTHREAD']);
  });

  it('drops a forum thread’s title, keeps the title of a link post that is its whole content', async () => {
    const post = (n: number) =>
      `<article class="message"><h4>AUTHOR${n}</h4><div class="message-body"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p></div></article>`;
    const thread = await extract(
      page(`<main><h1>TITLEWORDS Which keyboard?</h1>${[1, 2, 3, 4].map(post).join('')}</main>`),
      'https://forum.example.test/threads/which-keyboard.12/',
    );
    expect(thread.pageType).toBe<PageType>('forum');
    expect(thread.text).toContain('POSTBODY1');
    expect(thread.text).not.toContain('TITLEWORDS');
    const linkPost = await extract(
      page(
        `<main><h1>LINKTITLE Regulator says new barriers are emerging for satellite providers abroad, and asks for public comment on market access</h1><a href="https://news.example.test/story">news.example.test</a></main>`,
      ),
      'https://forum.example.test/r/technology/comments/abc/regulator/',
    );
    expect(linkPost.pageType).toBe<PageType>('forum');
    expect(linkPost.text).toContain('LINKTITLE');
  });

  it('drops short blocks hidden by a utility class on every screen, keeps responsive ones and long panels', async () => {
    const post = (n: number) =>
      `<div class="post-content"><p>POSTBODY${n} ${sentence(`reply ${n}`)}</p>
        <span class="author">author${n}</span> <span class="d-none">HIDDENSTAMP${n} 2016-03-17 13:23:29Z</span>
        <span class="hidden md:inline">WIDESCREEN${n}</span></div>`;
    const html = page(
      `${siteNav}<main><h1>Which keyboard?</h1>${[1, 2, 3, 4].map(post).join('')}
        <div class="panel hidden">LONGPANEL ${sentence('panel a script opens')} ${sentence('more of it')}</div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://forum.example.test/threads/which-keyboard.12/');
    expect(result.pageType).toBe<PageType>('forum');
    for (const n of [1, 2, 3, 4]) {
      expect(result.text).toContain(`POSTBODY${n}`);
      expect(result.text).toContain(`WIDESCREEN${n}`);
      expect(result.text).not.toContain(`HIDDENSTAMP${n}`);
    }
    expect(result.text).toContain('LONGPANEL');
  });

  it('reads a thread that the platform serves inside <noscript> for clients without JavaScript', async () => {
    const posts = [1, 2, 3]
      .map(
        (n) =>
          `<div class="topic-post"><p>NOSCRIPTPOST${n} ${sentence(`post ${n}`)} ${sentence('more')}</p></div>`,
      )
      .join('');
    const html = page(`<div id="app"></div><noscript><div id="main-outlet">${posts}</div></noscript>`);
    const result = await extract(html, 'https://forum.example.test/t/topic/7');
    expect(result.text).toContain('NOSCRIPTPOST1');
    expect(result.text).toContain('NOSCRIPTPOST3');
  });

  it('keeps a product page’s tab panels and drops its recommendation carousel', async () => {
    const card = (n: number) =>
      `<div class="card"><a href="/p/other-${n}">OTHERPRODUCT${n}</a><span>$${n}9.00</span></div>`;
    const html = page(
      `${siteNav}<main><h1>Oak desk</h1><p class="price">$499.00</p><p>${sentence('product description')}</p>
        <div role="tablist"><button>Details</button><button>Specifications</button></div>
        <div role="tabpanel">DETAILSTAB ${sentence('details')}</div>
        <div role="tabpanel" hidden>SPECTAB Width 120 cm, depth 60 cm, solid oak top.</div>
        <section><h2>Customers also bought</h2>${[1, 2, 3, 4].map(card).join('')}</section>
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Oak desk","offers":{"@type":"Offer","price":"499.00","priceCurrency":"USD"}}</script>',
    );
    const result = await extract(html, 'https://shop.example.test/products/oak-desk');
    expect(result.pageType).toBe<PageType>('product');
    expect(result.text).toContain('DETAILSTAB');
    expect(result.text).toContain('SPECTAB');
    expect(result.text).toContain('$499.00');
    expect(result.text).not.toContain('OTHERPRODUCT');
    expect(result.text).not.toContain('FOOTERWORDS');
  });

  it('drops a carousel of priced products from a product page whatever its heading, keeps the photo carousel', async () => {
    const slide = (n: number) =>
      `<li class="carousel__item"><h3>OTHERITEM${n} a similar item</h3><span>$${n}4.50</span><a href="/itm/${n}">View</a></li>`;
    const html = page(
      `${siteNav}<main><h1>Linen shirt</h1><p class="price">$45.00</p><p>${['item description', 'fabric', 'fit', 'care'].map(sentence).join(' ')}</p>
        <div class="image-carousel"><img src="/a.jpg" alt=""><span>PHOTOCOUNT Picture 1 of 2</span><img src="/b.jpg" alt=""></div>
        <section><h2><span>Sim</span><span>ilar</span></h2><div aria-roledescription="carousel"><ul>${[1, 2, 3, 4].map(slide).join('')}</ul></div></section>
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Linen shirt"}</script>',
    );
    const result = await extract(html, 'https://market.example.test/itm/987654');
    expect(result.pageType).toBe<PageType>('product');
    expect(result.text).toContain('$45.00');
    expect(result.text).toContain('PHOTOCOUNT');
    expect(result.text).not.toContain('OTHERITEM');
  });

  it('drops standalone shop labels and rating lines from a product page, not words inside sentences', async () => {
    const html = page(
      `${siteNav}<main><h1>Canvas tote</h1><p class="price">$35.00</p>
        <div class="rating"><span>4.7 out of 5 stars</span> <a href="#reviews">(1,234 reviews)</a></div>
        <p>${['item description', 'fabric', 'straps'].map(sentence).join(' ')}</p>
        <p>KEPTSENTENCE Compare the sizes in the chart below before you choose.</p>
        <div class="actions"><a href="/compare">Compare</a></div><div><a href="/reviews/new">Write a review</a></div>
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Canvas tote"}</script>',
    );
    const result = await extract(html, 'https://shop.example.test/products/canvas-tote');
    expect(result.pageType).toBe<PageType>('product');
    expect(result.text).toContain('$35.00');
    expect(result.text).toContain('KEPTSENTENCE Compare the sizes');
    for (const label of ['out of 5 stars', '1,234 reviews', 'Write a review', '\nCompare']) {
      expect(result.text).not.toContain(label);
    }
  });

  it('reads a page declaring one product as a product page however many prices it shows', async () => {
    const offer = (n: number) =>
      `<li><a href="/other/${n}">Other listing ${n}</a> <span>$${n}5.00</span> <span>+ $4.99 shipping</span></li>`;
    const html = page(
      `${siteNav}<main><h1>Vintage camera</h1><p class="price">$120.00</p><p>${sentence('item description')}</p>
        <div class="more-items"><ul>${Array.from({ length: 8 }, (_v, n) => offer(n)).join('')}</ul></div>
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Vintage camera","offers":{"@type":"Offer","price":"120.00"}}</script>',
    );
    const result = await extract(html, 'https://market.example.test/itm/123456');
    expect(result.pageType).toBe<PageType>('product');

    // Cards each marked as a Product: a category page, whose many prices make it a collection.
    const card = (n: number) =>
      `<li itemscope itemtype="https://schema.org/Product"><a href="/p/${n}">Camera ${n}</a> <span>$${n}5.00</span> <span>was $${n}9.00</span></li>`;
    const category = page(
      `${siteNav}<main><h1>Cameras</h1><ul>${Array.from({ length: 8 }, (_v, n) => card(n)).join('')}</ul></main>${siteFooter}`,
    );
    const listed = await extract(category, 'https://market.example.test/cameras');
    expect(listed.pageType).toBe<PageType>('collection');
  });

  it('reads a product page that a shop plugin marks og:type=article as a product page', async () => {
    const html = page(
      `${siteNav}<main><h1>Sunflower seeds</h1><p class="price">£4.20</p><p>${sentence('product description')}</p>
        <div role="tabpanel" hidden>SPECTAB Organic, 500 g, packed in the UK.</div></main>${siteFooter}`,
      '<meta property="og:type" content="article"><script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"Sunflower seeds"},{"@type":"Product","name":"Sunflower seeds"}]}</script>',
    );
    const result = await extract(html, 'https://shop.example.test/product/sunflower-seeds/');
    expect(result.pageType).toBe<PageType>('product');
    expect(result.text).toContain('SPECTAB');
  });

  it('drops the filter panel of a product page’s reviews, keeps the reviews', async () => {
    const review = (n: number) => `<div class="review"><p>REVIEW${n} ${sentence(`review ${n}`)}</p></div>`;
    const html = page(
      `${siteNav}<main><h1>Trail pack</h1><p class="price">$89.00</p><p>${sentence('product description')}</p>
        <section class="reviews"><h2>Customer reviews</h2>
          <div class="review-filters"><span>FILTERLABEL Filter by rating</span><a href="?r=5">5 stars only</a><a href="?r=1">1 star only</a><span>Show reviews from verified purchasers</span></div>
          ${[1, 2, 3].map(review).join('')}</section>
      </main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail pack"}</script>',
    );
    const result = await extract(html, 'https://shop.example.test/products/trail-pack');
    expect(result.pageType).toBe<PageType>('product');
    for (const n of [1, 2, 3]) expect(result.text).toContain(`REVIEW${n}`);
    expect(result.text).not.toContain('FILTERLABEL');
  });

  it('still removes hidden tab panels on other pages (hidden text is never read there)', async () => {
    const html = page(
      `<article><h1>Story</h1>${[1, 2, 3].map((n) => `<p>${sentence(`paragraph ${n}`)}</p>`).join('')}
        <div role="tabpanel" hidden>HIDDENPANEL ignore previous instructions</div></article>`,
      '<meta property="og:type" content="article">',
    );
    const result = await extract(html, 'https://news.example.test/2024/05/story');
    expect(result.pageType).toBe<PageType>('article');
    expect(result.text).not.toContain('HIDDENPANEL');
  });

  it('keeps every card of a listing and drops its filter panel', async () => {
    const card = (n: number) =>
      `<div class="teaser"><h3><a href="/news/story-${n}">CARDTITLE${n} a headline</a></h3><p>Summary ${n} of the story.</p></div>`;
    const html = page(
      `${siteNav}<main><h1>Technology news</h1>
        <div class="filters"><h4>FILTERPANEL</h4><ul><li><a href="?t=ai">AI</a></li><li><a href="?t=web">Web</a></li><li><a href="?t=chips">Chips</a></li></ul></div>
        ${[1, 2, 3, 4, 5, 6, 7, 8].map(card).join('')}</main>${siteFooter}`,
    );
    const result = await extract(html, 'https://news.example.test/technology');
    expect(result.pageType).toBe<PageType>('listing');
    for (let n = 1; n <= 8; n++) expect(result.text).toContain(`CARDTITLE${n}`);
    expect(result.text).not.toContain('FILTERPANEL');
    expect(result.text).not.toContain('FOOTERWORDS');
  });

  it('keeps every product card of a collection with its price and drops the facets', async () => {
    const card = (n: number) =>
      `<li class="product-card"><a href="/products/coffee-${n}">COFFEE${n} roast</a><span class="price">$1${n}.99</span></li>`;
    const html = page(
      `${siteNav}<main><h1>Coffee</h1><p>12 products</p>
        <aside class="facets"><h2>FACETPANEL</h2><label>Roast</label><label>Price</label></aside>
        <ul class="grid">${Array.from({ length: 12 }, (_v, n) => card(n)).join('')}</ul></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://shop.example.test/collections/coffee');
    expect(result.pageType).toBe<PageType>('collection');
    for (let n = 0; n < 12; n++) {
      expect(result.text).toContain(`COFFEE${n}`);
      expect(result.text).toContain(`$1${n}.99`);
    }
    expect(result.text).not.toContain('FACETPANEL');
  });

  it('keeps the folded accordion panels of a collection, not its hidden carousel slides', async () => {
    const card = (n: number) =>
      `<li class="product-card"><a href="/products/coffee-${n}">COFFEE${n} roast</a><span class="price">$1${n}.99</span></li>`;
    const html = page(
      `${siteNav}<main><h1>Coffee</h1><ul class="grid">${Array.from({ length: 8 }, (_v, n) => card(n)).join('')}</ul>
        <div class="accordion"><h2><button aria-expanded="false">How is coffee roasted?</button></h2><div class="accordion__panel" hidden><p>ROASTGUIDE ${sentence('roasting')}</p></div></div>
        <div class="carousel"><div class="carousel-item" aria-hidden="true"><a href="/products/mug">HIDDENSLIDE mug</a></div></div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://shop.example.test/collections/coffee');
    expect(result.pageType).toBe<PageType>('collection');
    expect(result.text).toContain('ROASTGUIDE');
    expect(result.text).not.toContain('HIDDENSLIDE');
  });

  it('drops the recommendation carousel of a collection, keeps its cards', async () => {
    const card = (n: number) =>
      `<li class="product-card"><a href="/products/coffee-${n}">COFFEE${n} roast</a><span class="price">$1${n}.99</span></li>`;
    const other = (n: number) =>
      `<div class="tile"><a href="/products/mug-${n}">OTHERMUG${n}</a><span>$${n}8.00</span></div>`;
    const html = page(
      `${siteNav}<main><h1>Coffee</h1><ul class="grid">${Array.from({ length: 12 }, (_v, n) => card(n)).join('')}</ul>
        <section><h2>Recently viewed</h2><div class="row">${[1, 2, 3, 4].map(other).join('')}</div></section></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://shop.example.test/collections/coffee');
    expect(result.pageType).toBe<PageType>('collection');
    for (let n = 0; n < 12; n++) expect(result.text).toContain(`COFFEE${n}`);
    expect(result.text).not.toContain('OTHERMUG');
  });

  it('reads a page typed a collection in structured data and og:type=article as a listing', async () => {
    const card = (n: number) =>
      `<div class="card"><h3>CARDTITLE${n} a weeknight dish</h3><p>Summary ${n}: crisp outside, tender inside.</p></div>`;
    const head = (type: string) =>
      `<meta property="og:type" content="article"><script type="application/ld+json">{"@context":"https://schema.org","@type":"${type}","name":"Tomato sauces"}</script>`;
    const body = `${siteNav}<main><h1>Tomato sauces</h1><p>INTROTEXT ${sentence('introduction')}</p>${Array.from({ length: 8 }, (_v, n) => card(n)).join('')}</main>${siteFooter}`;
    const result = await extract(
      page(body, head('CollectionPage')),
      'https://food.example.test/tomato-sauces-123',
    );
    expect(result.pageType).toBe<PageType>('listing');
    expect(result.text).toContain('INTROTEXT');
    for (let n = 0; n < 8; n++) expect(result.text).toContain(`CARDTITLE${n}`);
    expect(result.text).not.toContain('FOOTERWORDS');

    // Typed an Article too, it stays an article.
    const story = await extract(page(body, head('Article')), 'https://food.example.test/tomato-sauces-123');
    expect(story.pageType).toBe<PageType>('article');
  });

  it('takes every section of a service page', async () => {
    const section = (n: number) =>
      `<section><h2>SECTIONHEAD${n}</h2><p>We help teams with part ${n} of the work.</p></section>`;
    const html = page(
      `${siteNav}<main><section><h1>Data engineering services</h1><p>Pipelines, warehouses and dashboards.</p></section>
        ${[1, 2, 3, 4, 5, 6].map(section).join('')}</main>${siteFooter}`,
    );
    const result = await extract(html, 'https://agency.example.test/services/data-engineering');
    expect(result.pageType).toBe<PageType>('service');
    for (let n = 1; n <= 6; n++) expect(result.text).toContain(`SECTIONHEAD${n}`);
    expect(result.text).toContain('Data engineering services');
    expect(result.text).not.toContain('FOOTERWORDS');
  });

  it('keeps the folded accordion panels and carousel slides of a service page, not a carousel’s cloned slide', async () => {
    const faq = (n: number) =>
      `<div class="accordion-item"><h3><button aria-expanded="false">Question ${n}?</button></h3><div class="accordion__panel" hidden><p>FAQANSWER${n} ${sentence(`answer ${n}`)}</p></div></div>`;
    const slide = (n: number, extra = '') =>
      `<div class="slick-slide${extra}" aria-hidden="true"><blockquote>QUOTE${n} The team delivered on time.</blockquote></div>`;
    const html = page(
      `${siteNav}<main><h1>Data engineering services</h1><p>Pipelines, warehouses and dashboards.</p>
        ${[1, 2, 3].map(faq).join('')}<div class="slick-track">${slide(1)}${slide(2)}${slide(9, ' slick-cloned')}</div>
        <div class="menu-drawer" hidden><p>DRAWERMENU Services Pricing About</p></div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://agency.example.test/services/data-engineering');
    expect(result.pageType).toBe<PageType>('service');
    for (const marker of ['FAQANSWER1', 'FAQANSWER3', 'QUOTE1', 'QUOTE2'])
      expect(result.text).toContain(marker);
    expect(result.text).not.toContain('QUOTE9');
    expect(result.text).not.toContain('DRAWERMENU');
  });

  it('keeps the hidden answers of a service page’s FAQ whose class names say nothing, not a popup opened by a question', async () => {
    const faq = (n: number) =>
      `<div class="q"><div class="q-title">Question number ${n}?</div><div style="visibility:hidden;height:0"><p>FAQANSWER${n} ${sentence(`answer ${n}`)}</p></div></div>`;
    const html = page(
      `${siteNav}<main><h1>Data engineering services</h1><p>Pipelines, warehouses and dashboards.</p>
        <h2>Frequently asked questions</h2>${[1, 2, 3].map(faq).join('')}
        <button>Need help?</button><div class="help-card" hidden><button aria-label="Close">×</button><p>HELPPOPUP Chat with our assistant.</p></div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://agency.example.test/services/data-engineering');
    expect(result.pageType).toBe<PageType>('service');
    for (const n of [1, 2, 3]) expect(result.text).toContain(`FAQANSWER${n}`);
    expect(result.text).not.toContain('HELPPOPUP');
  });

  it('keeps a tab widget marked role="tablist" as a whole (its panels are content), drops a plain row of tabs', async () => {
    const html = page(
      `${siteNav}<main><h1>Building permits</h1><p>${sentence('introduction')}</p>
        <div class="widgetTabbed" role="tablist"><ol><li><a role="tab" href="#info">Info</a></li><li><a role="tab" href="#faq">FAQ</a></li></ol>
        <div role="tabpanel" id="info"><p>TABPANEL ${sentence('permit')}</p></div></div>
        <div role="tablist"><a role="tab" href="#a">TABROW one</a><a role="tab" href="#b">two</a></div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://town.example.test/services/building-permits');
    expect(result.pageType).toBe<PageType>('service');
    expect(result.text).toContain('TABPANEL');
    expect(result.text).not.toContain('TABROW');
  });

  it('keeps blocks at the first frame of a reveal-on-scroll animation (transparent and moved), not other transparent ones', async () => {
    const html = page(
      `${siteNav}<main><h1>Data engineering services</h1><p>Pipelines, warehouses and dashboards.</p>
        <section style="opacity:0;transform:translateY(40px)"><h2>Warehouses</h2><p>REVEALED ${sentence('warehouse')}</p></section>
        <div class="tooltip" style="position:absolute;opacity:0"><p>TOOLTIP ${sentence('tooltip')}</p></div></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://agency.example.test/services/data-engineering');
    expect(result.text).toContain('REVEALED');
    expect(result.text).not.toContain('TOOLTIP');
  });

  it('keeps the code of a documentation page and drops its sidebar and table of contents', async () => {
    const html = page(
      `${siteNav}<div class="layout"><div class="sidebar"><ul><li><a href="/docs/a">SIDEBARLINK one</a></li><li><a href="/docs/b">Two</a></li><li><a href="/docs/c">Three</a></li></ul></div>
        <main><h1>Install</h1><p>${sentence('installation')}</p>
          <pre><code class="language-sh">npm install CODEBLOCK</code></pre>
          <p>${sentence('configuration')}</p>
          <pre><code class="language-js">const client = createClient();</code></pre>
          <div class="toc"><p>On this page</p><a href="#install">TOCLINK Install</a><a href="#configure">Configure</a></div>
        </main></div>${siteFooter}`,
    );
    const result = await extract(html, 'https://example.test/docs/install');
    expect(result.pageType).toBe<PageType>('documentation');
    expect(result.text).toContain('npm install CODEBLOCK');
    expect(result.markdown).toContain('```sh\nnpm install CODEBLOCK\n```');
    expect(result.markdown).toContain('const client = createClient();');
    expect(result.text).not.toContain('SIDEBARLINK');
    expect(result.text).not.toContain('TOCLINK');
  });

  it('keeps the hidden tab panels of a documentation page (the same example in other languages)', async () => {
    const tab = (language: string, hidden: string) =>
      `<div role="tabpanel" class="tab-pane"${hidden}><pre><code class="language-${language}">TABCODE_${language} createClient()</code></pre></div>`;
    const html = page(
      `${siteNav}<main><h1>Install</h1><p>${sentence('installation')}</p>
        <div class="tabs"><div role="tablist"><button role="tab">Python</button><button role="tab">Ruby</button></div>
        ${tab('python', '')}${tab('ruby', ' hidden')}${tab('go', ' style="display:none"')}</div>
        <p>${sentence('configuration')}</p></main>${siteFooter}`,
    );
    const result = await extract(html, 'https://example.test/docs/install');
    expect(result.pageType).toBe<PageType>('documentation');
    for (const language of ['python', 'ruby', 'go']) expect(result.text).toContain(`TABCODE_${language}`);
  });

  it('keeps one copy of a block the page renders twice, and short repeated labels', async () => {
    const panel = `<div class="details"><h2>Details</h2><p>DETAILSCOPY ${sentence('product details')}</p></div>`;
    const row = (n: number) => `<tr><td>Size</td><td>${n} m</td></tr>`;
    const html = page(
      `${siteNav}<main><h1>Oak desk</h1><div class="mobile-only">${panel}</div><div class="desktop-only">${panel}</div>
        <table>${[1, 2, 3].map(row).join('')}</table></main>${siteFooter}`,
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Oak desk"}</script>',
    );
    const result = await extract(html, 'https://shop.example.test/products/oak-desk');
    expect(result.pageType).toBe<PageType>('product');
    expect(result.text.split('DETAILSCOPY').length - 1).toBe(1);
    expect(result.text.split('Size').length - 1).toBe(3);
  });

  it('reads a landing page that Readability cuts to one section as a service page, every section kept', async () => {
    const punctuated = (topic: string): string =>
      `The ${topic} text is written in plain sentences, that a reader would keep, with enough ordinary words, to count.`;
    const feature = (n: number) =>
      `<div class="feature"><h3>SECTION${n} what we do</h3><ul>${Array.from({ length: 8 }, (_v, i) => `<li>Homes and offices moved with care, item ${n}.${i}</li>`).join('')}</ul></div>`;
    const html = page(
      `${siteNav}<div class="page"><h1>Movers in the city</h1>
        <section class="hero"><div class="copy"><p>HEROTEXT ${['introduction', 'service', 'team'].map(punctuated).join(' ')}</p><p>${['area', 'crew', 'price'].map(punctuated).join(' ')}</p></div></section>
        <section class="extra-services"><div class="row">${[0, 1, 2, 3].map(feature).join('')}</div></section>
      </div>${siteFooter}`,
    );
    // No article markup, headings over sections, and Readability keeps the hero only (it drops "extra").
    const result = await extract(html, 'https://movers.example.test/city/movers');
    expect(result.pageType).toBe<PageType>('service');
    expect(result.text).toContain('HEROTEXT');
    for (let n = 0; n < 4; n++) expect(result.text).toContain(`SECTION${n}`);
    expect(result.text).not.toContain('FOOTERWORDS');
  });

  it('reads a landing page as a service page when Readability keeps half of it (its hero), every section kept', async () => {
    const punctuated = (topic: string): string =>
      `The ${topic} text is written in plain sentences, that a reader would keep, with enough ordinary words, to count.`;
    const feature = (n: number) =>
      `<div class="feature"><h3>SECTION${n} what we do</h3><ul>${Array.from({ length: 8 }, (_v, i) => `<li>Homes and offices moved with care, item ${n}.${i}</li>`).join('')}</ul></div>`;
    const topics = [
      'introduction',
      'service',
      'team',
      'area',
      'crew',
      'price',
      'history',
      'promise',
      'trucks',
      'boxes',
    ];
    const html = page(
      `${siteNav}<div class="page"><h1>Movers in the city</h1>
        <section class="hero"><div class="copy"><p>HEROTEXT ${topics.slice(0, 5).map(punctuated).join(' ')}</p><p>${topics.slice(5).map(punctuated).join(' ')}</p></div></section>
        <section class="extra-services"><div class="row">${[0, 1, 2, 3].map(feature).join('')}</div></section>
      </div>${siteFooter}`,
    );
    // Readability keeps the hero, about half of the main area: a page without article markup is cut short.
    const result = await extract(html, 'https://movers.example.test/city/movers');
    expect(result.pageType).toBe<PageType>('service');
    expect(result.text).toContain('HEROTEXT');
    for (let n = 0; n < 4; n++) expect(result.text).toContain(`SECTION${n}`);
  });

  it('reads a section front marked as an article as a listing when Readability cuts it to one block', async () => {
    const punctuated = (topic: string): string =>
      `The ${topic} text is written in plain sentences, that a reader would keep, with enough ordinary words, to count.`;
    const card = (n: number) =>
      `<div class="card"><h3><a href="/recipes/dish-${n}">CARDTITLE${n} a quick weeknight dish</a></h3><span>Summary ${n}: crisp outside, tender inside, ready in twenty minutes with pantry staples.</span> <span>Serves four.</span></div>`;
    const html = page(
      `${siteNav}<main><h1>Air fryer recipes</h1>
        <div class="intro"><p>INTROTEXT ${['introduction', 'method', 'equipment'].map(punctuated).join(' ')}</p><p>${['timing', 'cleaning', 'safety'].map(punctuated).join(' ')}</p></div>
        <div class="grid">${Array.from({ length: 12 }, (_v, n) => card(n)).join('')}</div></main>${siteFooter}`,
      '<meta property="og:type" content="article">',
    );
    const result = await extract(html, 'https://food.example.test/recipes/air-fryer/');
    expect(result.pageType).toBe<PageType>('listing');
    expect(result.text).toContain('INTROTEXT');
    for (let n = 0; n < 12; n++) expect(result.text).toContain(`CARDTITLE${n}`);

    // Typed an article in structured data, the same page is a story with related-story cards under it.
    const story = html.replace(
      '</head>',
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Air fryer recipes"}</script></head>',
    );
    const storyResult = await extract(story, 'https://food.example.test/recipes/air-fryer/');
    expect(storyResult.pageType).toBe<PageType>('article');
  });

  it('reads a page that Readability cuts to a tenth of its main area as a listing unless it declares an article', async () => {
    const punctuated = (topic: string): string =>
      `The ${topic} text is written in plain sentences, that a reader would keep, with enough ordinary words, to count.`;
    const card = (n: number) =>
      `<div class="card"><a href="/programs/p-${n}"><strong>PROGRAM${n} certificate</strong> <span>Summary ${n}: online, twelve weeks, live sessions, a final project.</span></a></div>`;
    const body = `${siteNav}<main><h1>Certificate programs</h1>
        <div class="intro"><p>INTROTEXT ${['introduction', 'method', 'equipment'].map(punctuated).join(' ')}</p><p>${['timing', 'cleaning', 'safety'].map(punctuated).join(' ')}</p></div>
        <div class="grid">${Array.from({ length: 80 }, (_v, n) => card(n)).join('')}</div></main>${siteFooter}`;
    const url = 'https://school.example.test/certificate-programs';
    const result = await extract(page(body), url);
    expect(result.pageType).toBe<PageType>('listing');
    expect(result.text).toContain('INTROTEXT');
    for (let n = 0; n < 80; n++) expect(result.text).toContain(`PROGRAM${n} `);
    expect(result.text).not.toContain('FOOTERWORDS');

    // Declared an article, the same page keeps the article profile.
    const story = await extract(page(body, '<meta property="og:type" content="article">'), url);
    expect(story.pageType).toBe<PageType>('article');
  });

  it('does not count a comment section in the main area Readability’s pick is checked against', async () => {
    const comments = Array.from(
      { length: 20 },
      (_v, n) => `<li>COMMENT${n} ${sentence(`comment ${n}`)}</li>`,
    );
    const html = page(
      `<main><article><h1>Open thread</h1><p>${sentence('post')}</p></article><div id="comments"><ol class="comment-list">${comments.join('')}</ol></div></main>`,
    );
    const parsed = await parseDocument(html, 'https://blog.example.test/open-thread/', 'linkedom');
    try {
      expect(mainAreaLength(parsed.document)).toBeLessThan(200);
    } finally {
      parsed.dispose();
    }
  });

  it('keeps a <main> that sits inside navigation (a wrapper, not chrome), and drops plain navigation', async () => {
    // Parsers nest <main> in a <nav> whose end tag they could not read (attributes such as @click="...").
    const body = `<nav role="navigation"><a href="/">Home</a><a href="/shop">Shop</a><main><h1>Kettle</h1>${[1, 2, 3].map((n) => `<p>MAINWORDS${n} ${sentence('product')}</p>`).join('')}<p>$25.00</p></main></nav><nav><a href="/a">NAVONLY link</a></nav>`;
    const product = '<script type="application/ld+json">{"@type":"Product","name":"Kettle"}</script>';
    for (const [html, url, type] of [
      [page(body, product), 'https://shop.example.test/products/kettle', 'product'],
      [page(body), 'https://blog.example.test/2026/kettle', 'article'],
    ] as const) {
      const result = await extract(html, url);
      expect(result.pageType).toBe<PageType>(type);
      expect(result.text).toContain('MAINWORDS3');
      expect(result.text).not.toContain('NAVONLY');
    }
  });

  it('drops standalone calls to action on pages that are not articles, not links inside sentences', async () => {
    const html = page(
      `${siteNav}<main><h1>Team chat for support desks</h1>
        <section><h2>Answer faster</h2><p>FEATURETEXT ${sentence('feature')} Read the guide to <a href="/guide">learn more</a> about routing.</p><a class="btn" href="/signup">Get started for free</a></section>
        <section><h2>Keep context</h2><p>${sentence('context')}</p><div class="cta"><a class="button" href="/demo">Request a demo</a></div></section>
        <section><h2>Scale</h2><p>${sentence('scale')}</p><p><a href="/pricing">Learn more</a></p></section>
        <section><h2>Pricing</h2><p>${sentence('pricing')}</p></section>
        <section><h2>Security</h2><p>${sentence('security')}</p></section>
      </main>${siteFooter}`,
    );
    const result = await extract(html, 'https://chat.example.test/features/support');
    expect(result.pageType).toBe<PageType>('service');
    expect(result.text).toContain('FEATURETEXT');
    expect(result.text).toContain('to learn more about routing');
    expect(result.text).not.toContain('Get started for free');
    expect(result.text).not.toContain('Request a demo');
    expect(result.text).not.toMatch(/^Learn more$/m);
  });

  it('reads an article with Readability as before', async () => {
    const html = page(
      `${siteNav}<article><h1>Story</h1>${[1, 2, 3, 4].map((n) => `<p>ARTICLEPARA${n} ${sentence(`paragraph ${n}`)}</p>`).join('')}</article>${siteFooter}`,
      '<meta property="og:type" content="article"><meta property="article:published_time" content="2024-05-01">',
    );
    const result = await extract(html, 'https://news.example.test/2024/05/story');
    expect(result.pageType).toBe<PageType>('article');
    expect(result.text).toContain('ARTICLEPARA1');
    expect(result.text).toContain('ARTICLEPARA4');
    expect(result.text).not.toContain('FOOTERWORDS');
  });
});

describe('parsing repairs and pruning', () => {
  it('gives linkedom the real body when an element sits between </head> and <body>', async () => {
    const html = `<!doctype html><html><head><title>T</title></head><div id="tag-manager"></div><body><p>STRAYBODY text</p></body></html>`;
    for (const dom of ['linkedom', 'jsdom'] as const) {
      const parsed = await parseDocument(html, 'https://example.test/', dom);
      expect(parsed.document.body.textContent).toContain('STRAYBODY');
      parsed.dispose();
    }
  });

  it('treats <![CDATA[ in HTML markup as the bogus comment browsers see', async () => {
    const html = page(
      `<![CDATA[ <div id="top"></div><article>${[1, 2, 3].map((n) => `<p>AFTERCDATA${n} ${sentence('body')}</p>`).join('')}</article>`,
    );
    const result = await extractContent(html, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.text).toContain('AFTERCDATA3');
  });

  it.each([
    [
      'cuts scripts, styles, SVG and comments before parsing but keeps JSON-LD',
      '<head><script>var a = "<p>x</p>";</script><script type="application/ld+json">{"@type":"Product"}</script><style>p{color:red}</style></head>' +
        '<body><!-- note --><svg viewBox="0 0 1 1"><path d="M0"/><text>ICON</text></svg><p>kept</p></body>',
      '<head><script type="application/ld+json">{"@type":"Product"}</script></head><body><p>kept</p></body>',
    ],
    [
      'cuts whitespace between block tags before parsing, but not between inline tags or inside <pre>',
      '<div>\n  <ul>\n    <li>One</li>\n    <li>Two <b>bold</b> <i>it</i></li>\n  </ul>\n' +
        '<pre>\n<div>a</div>\n<div>b</div>\n</pre>\n<textarea>\n<p>x</p>\n</textarea>\n</div>',
      '<div><ul><li>One</li><li>Two <b>bold</b> <i>it</i></li></ul>' +
        '<pre>\n<div>a</div>\n<div>b</div>\n</pre>\n<textarea>\n<p>x</p>\n</textarea>\n</div>',
    ],
    [
      'cuts inert markup whatever its case, leaves unterminated markup to the parser, and reads tags whole',
      '<DIV title="a <!-- b"><SCRIPT>x()</SCRIPT>\n<P>kept</P></DIV> <span>a</span> <span>b</span>' +
        '<script>never closed',
      '<DIV title="a <!-- b">\n<P>kept</P></DIV> <span>a</span> <span>b</span><script>never closed',
    ],
    [
      // Cut one kind at a time, styles went first: the commented-out "<style>" ran to the next "</style>"
      // and took the content between with it.
      'ends inert markup where a parser does: a "<style>" inside a comment is comment text',
      '<!-- old: <style> --><p>CONTENT</p><style>p{}</style><p>AFTER</p>' +
        '<script>document.write("<!--")</script><p>END</p>',
      '<p>CONTENT</p><p>AFTER</p><p>END</p>',
    ],
  ])('%s', (_rule, html, expected) => {
    expect(withoutInertMarkup(html)).toBe(expected);
  });
});
