/** The media type of every JSON body the gateway sends: catalog reads, errors, refusals. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
