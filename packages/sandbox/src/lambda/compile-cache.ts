// V8's compile cache of the Lambda runtime threads, kept in the temporary directory: bounded and
// cleaned. Node adds an entry for every module URL it compiles, and each execution environment
// loads its bundle under a URL of its own (a fresh module instance): ~1.5 MB an environment that no
// later run reads again. Left alone the directory grows by gigabytes over a few test runs.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CompileCacheBounds {
  /** Past this many bytes the oldest entries go… */
  readonly maxBytes: number;
  /** …until this many are left (room to grow before the next pruning). */
  readonly keepBytes: number;
  /**
   * The name prefix of this runtime's own directory (Node writes one per version, architecture and
   * V8 flags, `v24.22.3-x64-…`): every other one is left from another Node and is removed.
   */
  readonly currentPrefix: string;
}

/** This process's Node: its cache directories start with this. */
export const CURRENT_CACHE_PREFIX = `v${process.versions.node}-${process.arch}-`;

export const COMPILE_CACHE_BOUNDS: CompileCacheBounds = {
  maxBytes: 256 * 1024 * 1024,
  keepBytes: 64 * 1024 * 1024,
  currentPrefix: CURRENT_CACHE_PREFIX,
};

interface Entry {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

async function entriesIn(dir: string): Promise<Entry[]> {
  const names = await readdir(dir).catch(() => []);
  const entries = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      return info?.isFile() ? [{ path, bytes: info.size, mtimeMs: info.mtimeMs }] : [];
    }),
  );
  return entries.flat();
}

/**
 * Removes other runtimes' directories, then, when this runtime's entries weigh more than
 * `maxBytes`, the oldest of them down to `keepBytes`. A file another process is writing may go
 * too: that costs a compilation, never a wrong answer (Node checks each entry's source hash).
 */
export async function pruneCompileCache(
  dir: string,
  bounds: CompileCacheBounds = COMPILE_CACHE_BOUNDS,
): Promise<{ readonly removedBytes: number }> {
  let removedBytes = 0;
  const runtimes = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const runtime of runtimes) {
    if (!runtime.isDirectory()) continue;
    const path = join(dir, runtime.name);
    const entries = await entriesIn(path);
    const total = entries.reduce((sum, e) => sum + e.bytes, 0);
    if (!runtime.name.startsWith(bounds.currentPrefix)) {
      await rm(path, { recursive: true, force: true });
      removedBytes += total;
      continue;
    }
    if (total <= bounds.maxBytes) continue;
    let left = total;
    for (const entry of [...entries].sort((a, b) => a.mtimeMs - b.mtimeMs)) {
      if (left <= bounds.keepBytes) break;
      await rm(entry.path, { force: true });
      left -= entry.bytes;
      removedBytes += entry.bytes;
    }
  }
  return { removedBytes };
}
