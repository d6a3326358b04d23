// Reading a large, regular AWS answer ourselves, inside the SDK's pipeline: signing, endpoint,
// retries, throttling and error answers stay the SDK's; only a successful body is read by a
// purpose-built reader (xml-scan.ts), and the SDK is handed an empty answer to parse instead.
import type { AbsoluteLocation, DeserializeHandlerOptions, DeserializeMiddleware, MetadataBearer } from '@smithy/types';
import { UnexpectedXml } from './xml-scan.js';

const isAnswer = (value: unknown): value is { statusCode: number; body: unknown } =>
  typeof value === 'object' &&
  value !== null &&
  'statusCode' in value &&
  typeof value.statusCode === 'number' &&
  'body' in value;
const isStream = (value: unknown): value is AsyncIterable<Uint8Array | string> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

async function textOf(body: AsyncIterable<Uint8Array | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body)
    chunks.push(
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
  return Buffer.concat(chunks).toString('utf8');
}

interface CommandWithStack {
  readonly middlewareStack: {
    add(
      middleware: DeserializeMiddleware<object, MetadataBearer>,
      options: DeserializeHandlerOptions & AbsoluteLocation & { name: string },
    ): void;
  };
}

/**
 * Arranges for `command`'s successful answer to be read by `read`, the SDK parsing `emptyAnswer`
 * instead; returns what `read` made of it, once the command was sent (undefined when the answer was
 * left to the SDK: not sent yet, failed, or a document `read` did not recognise).
 */
export function readBodyInstead<T>(
  command: CommandWithStack,
  read: (text: string) => T,
  emptyAnswer: string,
): () => T | undefined {
  let result: T | undefined;
  command.middlewareStack.add(
    // Priority low: just inside the SDK's deserializer, so each attempt (the retry middleware wraps
    // both) hands it either an error answer as it came or the empty answer.
    (next) => async (args) => {
      const out = await next(args);
      const answer = out.response;
      if (isAnswer(answer) && answer.statusCode >= 200 && answer.statusCode < 300 && isStream(answer.body)) {
        const text = await textOf(answer.body);
        try {
          result = read(text);
          answer.body = Buffer.from(emptyAnswer);
        } catch (error) {
          if (!(error instanceof UnexpectedXml)) throw error;
          answer.body = Buffer.from(text);
        }
      }
      return out;
    },
    { step: 'deserialize', priority: 'low', name: 'readBodyInstead' },
  );
  return () => result;
}
