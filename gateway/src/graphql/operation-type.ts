import { parse, type OperationTypeNode } from 'graphql';
import { LRUCache } from 'lru-cache';

export interface OperationInfo {
  type: OperationTypeNode;
  name: string;
}

// Clients send a handful of distinct documents over and over: parse each once.
const known = new LRUCache<string, OperationInfo | false>({ max: 1_000 });

/**
 * The type and name of the operation a request will run, or undefined when the document does not
 * parse or name one (Apollo then reports the problem). Decides whether a response may be cached.
 */
export function operationOf(query: string, operationName: string | undefined): OperationInfo | undefined {
  const key = `${operationName ?? ''}\n${query}`;
  let info = known.get(key);
  if (info === undefined) {
    info = findOperation(query, operationName) ?? false;
    known.set(key, info);
  }
  return info || undefined;
}

function findOperation(query: string, operationName: string | undefined): OperationInfo | undefined {
  try {
    const operations = parse(query).definitions.filter((definition) => definition.kind === 'OperationDefinition');
    const operation = operationName
      ? operations.find((candidate) => candidate.name?.value === operationName)
      : operations.length === 1
        ? operations[0]
        : undefined;
    return operation && { type: operation.operation, name: operation.name?.value ?? 'anonymous' };
  } catch {
    return undefined;
  }
}
