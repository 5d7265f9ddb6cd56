// Response checks: status and the Atelier / GraphQL body shape, so a 200 with a wrong body
// still counts as a failure.
import { check } from 'k6';

const isJson = (response) => {
  try {
    return { ok: true, body: response.json() };
  } catch {
    return { ok: false, body: undefined };
  }
};

/** Body shape each REST route must answer with. */
const SHAPES = {
  list: (body) => Array.isArray(body),
  product: (body) => body !== null && typeof body === 'object' && 'id' in body && Array.isArray(body.features),
  styles: (body) => body !== null && typeof body === 'object' && 'product_id' in body && Array.isArray(body.results),
  related: (body) => Array.isArray(body),
};

export function checkRestResponse(response, route) {
  const { ok, body } = isJson(response);
  return check(response, {
    'status is 200': (r) => r.status === 200,
    [`${route} body has the Atelier shape`]: () => ok && SHAPES[route](body),
  });
}

export function checkGraphqlResponse(response, field) {
  const { ok, body } = isJson(response);
  return check(response, {
    'status is 200': (r) => r.status === 200,
    'no GraphQL errors': () => ok && !body.errors,
    [`data.${field} is present`]: () => ok && body.data != null && body.data[field] != null,
  });
}
