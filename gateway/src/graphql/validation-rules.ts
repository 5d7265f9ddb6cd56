import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';

/** Rejects documents nested deeper than `maxDepth` as a validation error (HTTP 400). */
function depthLimitRule(maxDepth: number): ValidationRule {
  return maxDepthRule({
    n: maxDepth,
    ignoreIntrospection: true,
    exposeLimits: true,
    // Report instead of throwing: a thrown error would surface as a 500.
    propagateOnRejection: false,
    onReject: [(context, error) => context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')))],
  }) as unknown as ValidationRule;
}

export interface ValidationSettings {
  maxDepth: number;
  introspection: boolean;
}

/**
 * The rules the gateway adds to graphql-js's own: the depth limit and, when introspection is
 * off, a refusal of `__schema`/`__type`. One list, given both to the document cache (which
 * validates every document Apollo runs) and to Apollo (which validates the documents the cache
 * refused, to report their errors), so the two can never disagree on what is valid.
 */
export function gatewayValidationRules({ maxDepth, introspection }: ValidationSettings): ValidationRule[] {
  return [depthLimitRule(maxDepth), ...(introspection ? [] : [NoSchemaIntrospectionCustomRule])];
}
