import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** Product fields that need the product's relations (features, styles, related rows). */
const RELATION_FIELDS = new Set(['features', 'styles', 'relatedIds', 'related']);

function selectsRelation(selectionSet: SelectionSetNode, info: GraphQLResolveInfo): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return RELATION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsRelation(selection.selectionSet, info);
    const fragment = info.fragments[selection.name.value];
    return fragment !== undefined && selectsRelation(fragment.selectionSet, info);
  });
}

/**
 * Whether the products this field returns will be asked for their relations: then the product
 * and its relations are fetched together in one statement instead of one level after another.
 */
export function wantsRelations(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && selectsRelation(node.selectionSet, info));
}
