/**
 * An agent that answers from live web data: the AI SDK's `generateText` with citewise as a tool.
 *
 *   node examples/agent-with-tool.ts "How do I create an API key?"
 *
 * The model comes from the environment (any OpenAI-compatible endpoint: MODEL_BASE_URL, MODEL_NAME and
 * optionally MODEL_API_KEY); without it, a scripted mock model plays the agent, so the example runs offline.
 * The search engine runs in-process over the project's docs. In your app, import from 'citewise' and
 * 'citewise/tools' instead of '../src/...'.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, isStepCount, type LanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createSearchEngine } from '../src/index.ts';
import { webSearchTool, type WebSearchToolOutput } from '../src/tools/index.ts';

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * A mock model that behaves like a tool-using agent: it first calls `web_search` with the user's question,
 * then answers from the tool's result, citing its sources.
 */
export function scriptedAgentModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const toolResult = prompt
        .flatMap((message) => (message.role === 'tool' ? message.content : []))
        .find((part) => part.type === 'tool-result');
      if (!toolResult) {
        const lastUser = prompt.filter((message) => message.role === 'user').at(-1);
        const question =
          lastUser?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call-1',
              toolName: 'web_search',
              input: JSON.stringify({ prompt: question }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: ZERO_USAGE,
          warnings: [],
        };
      }
      const output = toolResult.output;
      const result = (output.type === 'json' ? output.value : {}) as unknown as WebSearchToolOutput;
      const text = `From the web: ${result.answer}\n\nSources: ${result.sources.join(', ')}`;
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: ZERO_USAGE,
        warnings: [],
      };
    },
  });
}

/** The model named by the environment, or `undefined` when none is configured. */
export function modelFromEnvironment(env: NodeJS.ProcessEnv = process.env): LanguageModel | undefined {
  const baseURL = env['MODEL_BASE_URL'];
  const modelName = env['MODEL_NAME'];
  if (!baseURL || !modelName) return undefined;
  const provider = createOpenAICompatible({
    name: 'model',
    baseURL,
    ...(env['MODEL_API_KEY'] ? { apiKey: env['MODEL_API_KEY'] } : {}),
  });
  return provider(modelName);
}

/** Asks the agent one question; the engine is created and closed here. */
export async function askAgent(question: string, model: LanguageModel = scriptedAgentModel()) {
  const engine = createSearchEngine();
  try {
    const { key } = await engine.createKey();
    const result = await generateText({
      model,
      system: 'Answer with web_search results and cite the sources.',
      prompt: question,
      tools: { web_search: webSearchTool(engine, { apiKey: key }) },
      stopWhen: isStepCount(3),
    });
    return { text: result.text, steps: result.steps, balance: await engine.balance(key) };
  } finally {
    await engine.close();
  }
}

if (import.meta.main) {
  const question = process.argv[2] ?? 'How do I create an API key?';
  const { text } = await askAgent(question, modelFromEnvironment());
  console.log(text);
}
