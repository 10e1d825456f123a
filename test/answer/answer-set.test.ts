/**
 * Answers a person would write: the handmade questions of test/fixtures/answer-set.json, asked over HTTP of
 * an engine answering from the manual (docs/) and of one answering from test/fixtures/handbook/ (Markdown
 * with comments and front matter, an HTML page). Each answer must quote the expected sentences whole, and
 * hold no comment, markup, page intro or unrelated trailing sentence listed under `never`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { apiClient, type ApiClient } from '../support/servers.ts';

interface AnswerSetQuestion {
  corpus: 'manual' | 'handbook';
  question: string;
  expect: string[];
  never: string[];
}

const SET = JSON.parse(readFileSync(new URL('../fixtures/answer-set.json', import.meta.url), 'utf8')) as {
  questions: AnswerSetQuestion[];
};
const HANDBOOK = fileURLToPath(new URL('../fixtures/handbook/', import.meta.url));

const running: { engine: SearchEngine; server: ListeningServer }[] = [];
const clients = new Map<AnswerSetQuestion['corpus'], ApiClient>();

beforeAll(async () => {
  for (const corpus of ['manual', 'handbook'] as const) {
    const engine = createSearchEngine(corpus === 'manual' ? {} : { corpus: [HANDBOOK] });
    const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
    const { key } = await engine.createKey({ credits: 1_000 });
    running.push({ engine, server });
    clients.set(corpus, apiClient(server.baseUrl, key));
  }
});

afterAll(async () => {
  for (const { engine, server } of running) await Promise.all([server.close(), engine.close()]);
});

describe('extractive answers quote whole sentences, without markup, intros or unrelated sentences', () => {
  it.each(SET.questions.map((q) => [q.corpus, q.question, q] as const))(
    '%s: %s',
    async (corpus, question, entry) => {
      const response = await clients.get(corpus)!.post({ prompt: question });
      expect(response.status).toBe(200);
      const { answer, sources } = (await response.json()) as { answer: string; sources: string[] };
      expect(sources.length).toBeGreaterThan(0);
      for (const sentence of entry.expect) expect(answer).toContain(sentence);
      for (const text of entry.never) expect(answer).not.toContain(text);
      // Every sentence is whole: it starts like a sentence and ends with its citation and punctuation.
      const sentences = answer.split(/(?<=\[\d+\][.!?…]["'”’)]*) /);
      for (const sentence of sentences) {
        expect(sentence, answer).toMatch(/^[\p{Lu}\p{N}`*"(]/u);
        expect(sentence, answer).toMatch(/ \[\d+\][.!?…]["'”’)]*$/u);
        expect((sentence.match(/`/g) ?? []).length % 2, sentence).toBe(0);
      }
      // Markup outside code spans (`--port <port>` is a command, not a tag).
      expect(answer.replace(/`[^`]*`/g, '``')).not.toMatch(/<!--|-->|\]\(|<\/?[a-z]+[ >]/);
    },
  );
});
