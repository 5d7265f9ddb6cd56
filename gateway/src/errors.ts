/**
 * Errors the gateway reports to clients. Both the REST error handler and the GraphQL error plugin
 * map them to an HTTP status, so a problem reads the same whichever door it came through.
 */
export abstract class ClientFacingError extends Error {
  abstract readonly statusCode: number;
  abstract readonly code: string;
}

export class BadInputError extends ClientFacingError {
  readonly statusCode = 400;
  readonly code = 'BAD_USER_INPUT';
}

export class UnauthorizedError extends ClientFacingError {
  readonly statusCode = 401;
  readonly code = 'UNAUTHENTICATED';
  constructor() {
    super('missing or invalid bearer token: writes need Authorization: Bearer <WRITE_TOKEN>');
  }
}

export class NotFoundError extends ClientFacingError {
  readonly statusCode = 404;
  readonly code = 'NOT_FOUND';
}

/** Postgres is down, slow or saturated: the client should retry after `retryAfterSeconds`. */
export class ServiceUnavailableError extends ClientFacingError {
  readonly statusCode = 503;
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
