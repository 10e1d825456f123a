/**
 * Reading a request's JSON body, the same for /v1 and /mcp: content type and encoding, size, UTF-8, JSON,
 * nesting depth.
 */
import { CitewiseError } from '../errors.ts';
import type { ProtocolRequest } from '../contract/protocol.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../contract/search.ts';
import { decodeRequestBody, requestEncodings } from './content-encoding.ts';
import { payloadTooLarge } from './respond.ts';

/**
 * Reads a JSON body: content type and encoding (415), size after decoding (413), UTF-8 and JSON (400).
 * Shared by /v1 and /mcp, so both have the same limit and checks.
 */
export async function readJsonBody(request: ProtocolRequest, limit: number): Promise<unknown> {
  const contentType = request.header('content-type');
  if (!contentType || !isJsonMediaType(contentType)) {
    throw new CitewiseError('unsupported_media_type', `content-type ${contentType ?? '(none)'}`);
  }
  const codings = requestEncodings(request.header('content-encoding'));
  const declared = Number(request.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    throw new CitewiseError('payload_too_large', undefined, {
      description: `Payload Too Large: the body must be at most ${limit} bytes`,
    });
  }
  // A host framework's body parser (e.g. express.json()) may have read the body already.
  if (request.parsedBody !== undefined) return withinDepth(request.parsedBody);
  const raw = await request.readBody(limit);
  const bytes = codings.length
    ? await decodeRequestBody(raw, codings, limit, () => payloadTooLarge(limit))
    : raw;
  if (bytes.byteLength === 0) {
    throw new CitewiseError('invalid_request', 'empty body', {
      description: 'Invalid request: the body is required (a JSON object with a prompt)',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new CitewiseError('invalid_request', 'body is not UTF-8', {
      description: 'Invalid request: the body is not valid UTF-8',
      cause,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new CitewiseError('invalid_request', 'malformed JSON', {
      description: 'Invalid request: the body is not valid JSON',
      cause,
    });
  }
  return withinDepth(parsed);
}

/**
 * A body with a field nested past {@link MAX_JSON_DEPTH} is a 400 naming the field, whatever the route (the
 * same words as the `json_schema` check).
 */
function withinDepth(body: unknown): unknown {
  const tooDeep = (name: string, limit: number) =>
    new CitewiseError('invalid_request', 'body nested too deeply', {
      description: `Invalid request: ${name} must be nested at most ${limit} levels deep`,
    });
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) {
      if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep(name, MAX_JSON_DEPTH);
    }
  } else if (jsonDepth(body, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH + 1) {
    throw tooDeep('the body', MAX_JSON_DEPTH + 1);
  }
  return body;
}

/** `application/json` or any `+json` type, parameters allowed; a charset other than UTF-8 is refused. */
function isJsonMediaType(value: string): boolean {
  const [type = '', ...params] = value.toLowerCase().split(';');
  const media = type.trim();
  if (media !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(media)) return false;
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  return !charset || /^charset="?utf-8"?$/.test(charset);
}
