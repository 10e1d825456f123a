/**
 * The OpenAI-compatible routes (`POST /v1/chat/completions`, `GET /v1/models`): translators in front of the
 * search (compat/openai-chat.ts), their errors in OpenAI's shape.
 */
import { chatCompletion, chatCompletionChunks, modelList, parseChatRequest } from '../compat/openai-chat.ts';
import { readJsonBody } from '../body.ts';
import { json, sseResponse, withHeaders } from '../respond.ts';
import type { KeyedRoute } from '../route.ts';

export const chatCompletionsRoute: KeyedRoute = {
  method: 'POST',
  admission: 'key+rate',
  errors: 'openai',
  async handle({ service, request, info }, { key, headers }) {
    const plan = parseChatRequest(await readJsonBody(request, service.maxBodyBytes));
    if (plan.stream) {
      const events = await service.runSearchStream(key, plan.search, info);
      return withHeaders(sseResponse(chatCompletionChunks(plan, events, info.requestId), info), headers);
    }
    const found = await service.runSearch(key, plan.search, info);
    return withHeaders(json(200, chatCompletion(plan, found, info.requestId), info), headers);
  },
};

export const modelsRoute: KeyedRoute = {
  method: 'GET',
  admission: 'key',
  errors: 'openai',
  handle: async ({ info }) => json(200, modelList(), info),
};
