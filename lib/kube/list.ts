import type * as z from 'zod';
import { kubePath, type CallOptions, type KubeClient } from './client.js';
import { listOf } from './schemas.js';

/** Page size for every list: large enough to be fast, small enough to bound memory. */
export const LIST_PAGE = 500;

type Page<T extends z.ZodType> = z.output<ReturnType<typeof listOf<T>>>;

/**
 * Reads every page of a list (`limit` 500 + `continue`), handing each to `onPage` in order and
 * keeping none. The next page is asked for as soon as this one's continue token has arrived (the
 * answer's head, before its items), so the server prepares it while this one is still being
 * received and read: at most two pages in flight, each still one call.
 */
export async function listPages<T extends z.ZodType>(
  kube: KubeClient,
  prefix: string,
  item: T,
  onPage: (page: Page<T>) => void,
  options: Pick<CallOptions, 'emptyArrays'> & {
    /** Only the objects this label selector matches (`?labelSelector=`); default every object. */
    readonly labelSelector?: string;
  } = {},
): Promise<void> {
  const { labelSelector, ...callOptions } = options;
  const schema = listOf(item);
  interface Fetch {
    readonly page: Promise<Page<T>>;
    /** The next page, asked for early under this token (once this page's head arrived). */
    readonly early: { readonly token: string; readonly fetch: Fetch } | undefined;
  }
  const fetch = (token: string | undefined): Fetch => {
    let early: Fetch['early'];
    const page = kube.call(
      { method: 'GET', path: kubePath(prefix), query: { labelSelector, limit: LIST_PAGE, continue: token } },
      schema,
      {
        ...callOptions,
        // Once per page, whatever the retries: a second head of the same page brings the same token.
        onContinue: (next) => {
          if (early !== undefined) return;
          const fetched = fetch(next);
          // Read only if this page succeeds: its failure must not be an unhandled rejection.
          fetched.page.catch(() => undefined);
          early = { token: next, fetch: fetched };
        },
      },
    );
    return {
      page,
      get early() {
        return early;
      },
    };
  };
  let current = fetch(undefined);
  for (;;) {
    const page = await current.page;
    onPage(page);
    const token = page.metadata.continue || undefined;
    if (token === undefined) return;
    current = current.early?.token === token ? current.early.fetch : fetch(token);
  }
}
