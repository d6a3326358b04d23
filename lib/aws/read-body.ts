// Reading a large, regular AWS answer ourselves, inside the SDK's pipeline: signing, endpoint,
// retries, throttling and error answers stay the SDK's; only a successful body is read by a
// purpose-built reader (xml-scan.ts), and the SDK is handed an empty answer to parse instead.
import type { AbsoluteLocation, DeserializeHandlerOptions, DeserializeMiddleware, MetadataBearer } from '@smithy/types';
import { ByteCollector, type BytePool } from '../support/byte-pool.js';
import { UnexpectedXml } from './xml-scan.js';

const isAnswer = (value: unknown): value is { statusCode: number; body: unknown } =>
  typeof value === 'object' &&
  value !== null &&
  'statusCode' in value &&
  typeof value.statusCode === 'number' &&
  'body' in value;
const isStream = (value: unknown): value is AsyncIterable<Uint8Array | string> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** The answer's text, assembled in a pooled buffer (byte-pool.ts): a DescribeInstances page is 3 MB. */
async function textOf(body: AsyncIterable<Uint8Array | string>, pool: BytePool): Promise<string> {
  const collected = new ByteCollector(pool);
  try {
    for await (const chunk of body) collected.add(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return collected.bytes().toString('utf8');
  } finally {
    collected.release();
  }
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
 * left to the SDK: not sent yet, failed, or a document `read` did not recognise). The answer is
 * assembled in a buffer of `pool`.
 */
export function readBodyInstead<T>(
  command: CommandWithStack,
  read: (text: string) => T,
  emptyAnswer: string,
  pool: BytePool,
): () => T | undefined {
  let result: T | undefined;
  command.middlewareStack.add(
    // Priority low: just inside the SDK's deserializer, so each attempt (the retry middleware wraps
    // both) hands it either an error answer as it came or the empty answer.
    (next) => async (args) => {
      const out = await next(args);
      const answer = out.response;
      if (isAnswer(answer) && answer.statusCode >= 200 && answer.statusCode < 300 && isStream(answer.body)) {
        const text = await textOf(answer.body, pool);
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
