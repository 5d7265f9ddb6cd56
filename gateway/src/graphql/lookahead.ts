import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** Product fields that need the product's relations (features, styles, related rows). */
const RELATION_FIELDS = new Set(['features', 'styles', 'relatedIds', 'related']);

/** The fields of a selection set, fragments (named and inline) spread in. */
function* fieldsOf(selectionSet: SelectionSetNode, info: GraphQLResolveInfo): Generator<FieldNode> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) yield selection;
    else if (selection.kind === Kind.INLINE_FRAGMENT) yield* fieldsOf(selection.selectionSet, info);
    else {
      const fragment = info.fragments[selection.name.value];
      if (fragment !== undefined) yield* fieldsOf(fragment.selectionSet, info);
    }
  }
}

/** The selection sets reached from this field by following `path` (field names, whatever their aliases). */
function selectionSetsAt(info: GraphQLResolveInfo, path: readonly string[]): SelectionSetNode[] {
  let sets = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path) {
    sets = sets.flatMap((set) =>
      [...fieldsOf(set, info)].flatMap((field) => (field.name.value === name && field.selectionSet ? [field.selectionSet] : [])),
    );
  }
  return sets;
}

/**
 * Whether the products this field returns will be asked for their relations: then the product
 * and its relations are fetched together in one statement instead of one level after another.
 */
export function wantsRelations(info: GraphQLResolveInfo): boolean {
  return selectionSetsAt(info, []).some((set) => [...fieldsOf(set, info)].some((field) => RELATION_FIELDS.has(field.name.value)));
}

/**
 * Names of the fields selected at any of `paths` below this field (`[['nodes'], ['edges', 'node']]`
 * for a connection's items), through fragments and aliases. Fields under @skip/@include are
 * counted: a superset is safe.
 */
export function selectedFieldNames(info: GraphQLResolveInfo, paths: readonly (readonly string[])[]): Set<string> {
  const names = new Set<string>();
  for (const path of paths) {
    for (const set of selectionSetsAt(info, path)) for (const field of fieldsOf(set, info)) names.add(field.name.value);
  }
  return names;
}
