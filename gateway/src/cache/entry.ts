/** A cached 200 response: its bytes, what it was built from, and when it stops being valid. */
export interface CacheEntry {
  body: string;
  /** Free-form facts about the response the edge needs on a hit (GraphQL: operation type and name). */
  meta: string;
  tags: string[];
  expiresAt: number;
}

// One line per header field, then the body: cheap to write and to split, no double JSON encoding.
export function encodeEntry(entry: CacheEntry): string {
  return `${entry.expiresAt}\n${entry.tags.join(' ')}\n${entry.meta}\n${entry.body}`;
}

export function decodeEntry(text: string): CacheEntry | undefined {
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  const third = text.indexOf('\n', second + 1);
  if (first < 0 || second < 0 || third < 0) return undefined;
  const tags = text.slice(first + 1, second);
  return {
    expiresAt: Number(text.slice(0, first)),
    tags: tags === '' ? [] : tags.split(' '),
    meta: text.slice(second + 1, third),
    body: text.slice(third + 1),
  };
}
