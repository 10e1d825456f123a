/**
 * A minimal server-sent events reader for the streamed search (`"stream": true`): the service sends
 * `event: <type>` and one JSON `data:` line per event, separated by blank lines.
 */

/** One server-sent event: its name (`message` when unnamed) and its data lines joined by `\n`. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  /** Its `id:` field (what `Last-Event-ID` names), when it had one. */
  readonly id?: string;
}

/** Splits a byte stream into server-sent events (per the WHATWG event-stream format; `retry` ignored). */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let id: string | undefined;
  let data: string[] = [];
  const flush = function* (line: string): Generator<ServerSentEvent> {
    if (line === '') {
      if (data.length)
        yield { event: event || 'message', data: data.join('\n'), ...(id === undefined ? {} : { id }) };
      event = '';
      id = undefined;
      data = [];
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: RegExpExecArray | null;
    const lineBreak = /\r\n|\r|\n/g;
    let start = 0;
    // A lone trailing \r may be the first half of \r\n: keep it for the next chunk.
    while ((newline = lineBreak.exec(buffer)) !== null) {
      if (newline[0] === '\r' && newline.index === buffer.length - 1) break;
      yield* flush(buffer.slice(start, newline.index));
      start = newline.index + newline[0].length;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer) yield* flush(buffer);
  yield* flush('');
}
