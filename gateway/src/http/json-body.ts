import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { BadInputError } from '../errors.js';

/**
 * JSON bodies must be UTF-8. Fastify's own parser decodes invalid bytes to U+FFFD, which would
 * then be stored as if the client had sent it; this checks the bytes first and otherwise parses
 * exactly as Fastify does (its default JSON parser, prototype poisoning refused).
 */
export function installUtf8JsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(new BadInputError('request body is not valid UTF-8'), undefined);
      return;
    }
    parseJson(request, bytes.toString('utf8'), done);
  });
}
