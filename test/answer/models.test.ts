import { describe, expect, it } from 'vitest';
import {
  LOCAL_SERVER_BASE_URLS,
  modelEnvironment,
  parseModelSpec,
  resolveEmbeddingModel,
  resolveModel,
} from '../../src/models/index.ts';

describe('parseModelSpec', () => {
  it('splits at the first colon', () => {
    expect(parseModelSpec('ollama:llama3.2:3b')).toEqual({ provider: 'ollama', modelId: 'llama3.2:3b' });
    expect(parseModelSpec('OpenAI:gpt-4.1-mini')).toEqual({ provider: 'openai', modelId: 'gpt-4.1-mini' });
  });
  it('rejects malformed specs and unknown providers', () => {
    expect(() => parseModelSpec('gpt-4')).toThrow(TypeError);
    expect(() => parseModelSpec('openai:')).toThrow(TypeError);
    expect(() => parseModelSpec('mystery:model')).toThrow(/unknown model provider/);
  });
});

describe('resolveModel', () => {
  it('builds OpenAI-compatible models, with local servers’ default base URLs', async () => {
    const model = await resolveModel('openai-compatible:m', { baseUrl: 'http://127.0.0.1:9/v1' });
    expect(model).toMatchObject({ modelId: 'm', specificationVersion: 'v4' });
    const ollama = await resolveModel('ollama:qwen3:4b');
    expect(ollama).toMatchObject({ modelId: 'qwen3:4b' });
    expect(LOCAL_SERVER_BASE_URLS.ollama).toBe('http://127.0.0.1:11434/v1');
  });

  it('requires a base URL for openai-compatible and refuses bad ones', async () => {
    await expect(resolveModel('openai-compatible:m')).rejects.toThrow(/needs a base URL/);
    await expect(resolveModel('ollama:m', { baseUrl: 'file:///etc' })).rejects.toThrow(TypeError);
  });

  it('says which package to install for a provider that is not installed', async () => {
    await expect(resolveModel('anthropic:claude-sonnet-4-5', { apiKey: 'k' })).rejects.toThrow(
      'install @ai-sdk/anthropic to use anthropic:claude-sonnet-4-5',
    );
    await expect(resolveEmbeddingModel('anthropic:x')).rejects.toThrow(/no embedding models/);
  });
});

describe('modelEnvironment', () => {
  const env = {
    OPENAI_API_KEY: 'sk-openai',
    ANTHROPIC_API_KEY: 'sk-ant',
    GOOGLE_GENERATIVE_AI_API_KEY: 'g',
    OLLAMA_BASE_URL: 'http://gpu.lan:11434/v1',
    OPENAI_BASE_URL: '  ',
  };
  it('maps the providers’ usual variables', () => {
    expect(modelEnvironment('openai:gpt-4.1-mini', env)).toEqual({ apiKey: 'sk-openai' });
    expect(modelEnvironment('anthropic:claude', env)).toEqual({ apiKey: 'sk-ant' });
    expect(modelEnvironment('google:gemini-2.5-flash', env)).toEqual({ apiKey: 'g' });
    expect(modelEnvironment('ollama:llama3.2', env)).toEqual({ baseUrl: 'http://gpu.lan:11434/v1' });
    expect(modelEnvironment('openai-compatible:x', {})).toEqual({});
  });
});
