/** Runs `work` over every item with at most `concurrency` in flight (workers share one iterator). */
export async function forEachConcurrently<T>(items: Iterable<T>, concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const pending = items[Symbol.iterator]();
  const worker = async () => {
    for (let next = pending.next(); !next.done; next = pending.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
