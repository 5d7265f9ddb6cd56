// The clients of a coherence run: writers that each own a disjoint set of products and write
// them one at a time, and readers that read products every way the gateway serves them, through
// any gateway, until told to stop. Every operation lands in the history with its times.
import { setTimeout as sleep } from 'node:timers/promises';
import { scatterRanks, zipfSampler } from '../../../k6/lib/zipf.js';
import { seededRandom, uniformInt, type Random } from '../../bench/random.js';
import { versionedSlogan } from './catalog.js';
import { isSuccess, now, type HistoryRecorder, type Observation, type Outcome } from './history.js';
import { sqlWriter } from './sql-writer.js';

/** A gateway the clients talk to; its base URL stays the same across restarts. */
export interface Endpoint {
  readonly name: string;
  readonly base: string;
}

export interface WorkloadOptions {
  gateways: readonly Endpoint[];
  /** Where readers also read, writers never: a shared cache in front of the gateways. */
  readVia?: readonly Endpoint[];
  /** Products in the catalog, ids 1..products. */
  products: number;
  writers: number;
  readers: number;
  /** A writer's pause between writes, [shortest, longest] ms: a shop's pace by default, 0 for a burst. */
  writePauseMs?: readonly [number, number];
  writeToken: string;
  /** Names this run in every slogan it writes, so runs on one catalog never write the same value. */
  run: string;
  /** Seeds every client's own stream, so one seed replays the same choices. */
  random: Random;
  recorder: HistoryRecorder;
  /** Writers straight into Postgres (the primary at `databaseUrl`), owning products of their own. */
  sql?: { databaseUrl: string; writers: number };
}

/** Products written, by popularity rank: the hottest ones, then every 40th rank beyond (cold ones). */
const HOT_WRITTEN_RANKS = 12;
const COLD_WRITTEN_STRIDE = 40;
/** Share of reads that pick among the written products; the rest follow the catalog's Zipf popularity. */
const READS_OF_WRITTEN = 0.5;
/** A writer's pause between writes: reads outnumber writes, as in a shop. */
const SHOP_WRITE_PAUSE_MS = [200, 600] as const;
/** Share of writes saved again at once with a page loading in between (an editor saving twice, an autosave). */
const READ_AROUND_SAVES_SHARE = 0.5;
/** How long after that page began loading the second save is sent, [shortest, longest] ms. */
const SECOND_SAVE_AFTER_MS = [2, 20] as const;
/** Longest a client waits for one answer before recording it unanswered. */
const REQUEST_TIMEOUT_MS = 15_000;
/** A client pauses this long after a request that got no answer (its gateway down), not to spin. */
const PAUSE_AFTER_FAILURE_MS = 25;
const ACCEPT_ENCODINGS = ['', 'gzip', 'br', 'gzip, deflate, br', 'identity'];
const LIST_COUNTS = [5, 20, 50];
/** Product-card sets asked for by id (`productsByIds`). */
const SHELVES = 40;

const PRODUCT_QUERY = 'query Product($id: ID!) { product(id: $id) { id slogan } }';
const PRODUCTS_BY_IDS_QUERY = 'query Products($ids: [ID!]!) { productsByIds(ids: $ids) { id slogan } }';
const UPDATE_MUTATION = 'mutation Update($id: ID!, $slogan: String!) { updateProduct(id: $id, input: { slogan: $slogan }) { id slogan } }';

interface ProductJson {
  id: number | string;
  slogan: string | null;
}

/** One request a client makes, and how to read its answer. */
interface PlannedRequest {
  label: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  outcome: Outcome;
  body: unknown;
}

/** The body as JSON when it parses, else as text (which no observation accepts: a garbled body shows). */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sends `request` to `gateway`; never throws: what went wrong is the outcome. */
async function send(gateway: Endpoint, request: PlannedRequest): Promise<Answer> {
  let status: number;
  let text: string;
  try {
    const response = await fetch(`${gateway.base}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    return { outcome: (error as Error).name === 'TimeoutError' ? 'timeout' : 'error', body: undefined };
  }
  const body = parseBody(text);
  const graphqlErrors = request.path.startsWith('/graphql') && (body as { errors?: unknown } | null)?.errors !== undefined;
  return { outcome: graphqlErrors && status < 300 ? 'graphql-errors' : status, body };
}

const graphqlGet = (label: string, query: string, variables: unknown, acceptEncoding: string): PlannedRequest => ({
  label: `${label} GET`,
  method: 'GET',
  path: `/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`,
  headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {},
});

const graphqlPost = (label: string, query: string, variables: unknown, headers: Record<string, string> = {}): PlannedRequest => ({
  label: `${label} POST`,
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ query, variables }),
});

/** What an answer says about `product`: its slogan, or null when the answer does not hold it. */
const observe = (product: number, found: ProductJson | null | undefined): Observation => ({
  product,
  slogan: found && Number(found.id) === product ? found.slogan : null,
});

/** A read and how its answer turns into observations. */
interface PlannedRead {
  request: PlannedRequest;
  /** A product every 2xx answer must hold: what a malformed answer is recorded against. */
  subject: number;
  observe(body: unknown): Observation[];
}

/**
 * What a run writes and reads, by popularity, as a shop's traffic has it: a few hot products and
 * a long tail, early list pages more than deep ones, and a fixed set of "shelves" (a home page's
 * product cards) asked for by id. Reads mostly hit a cache; the misses are what writes cause.
 */
export class Popularity {
  private readonly idOfRank: (rank: number) => number;
  /** Written products, in rank order: writer w owns those at positions ≡ w (mod writers). */
  readonly written: number[];
  private readonly shelves: number[][];

  constructor(
    readonly products: number,
    random: Random,
  ) {
    this.idOfRank = scatterRanks(products);
    const ranks = Array.from({ length: products }, (_, index) => index + 1);
    this.written = ranks
      .filter((rank) => rank <= HOT_WRITTEN_RANKS || (rank - HOT_WRITTEN_RANKS) % COLD_WRITTEN_STRIDE === 0)
      .map(this.idOfRank);
    const product = this.productSampler(random);
    this.shelves = Array.from({ length: SHELVES }, () => [...new Set(Array.from({ length: uniformInt(random, 2, 8) }, product))]);
  }

  ownedBy(writer: number, writers: number): number[] {
    return this.written.filter((_, index) => index % writers === writer);
  }

  /** Products by Zipf popularity (the hot ones stay in a gateway's memory, the tail in Redis), a share among the written ones. */
  productSampler(random: Random): () => number {
    const rank = zipfSampler(this.products, 1, random);
    return () => (random() < READS_OF_WRITTEN ? this.written[Math.floor(random() * this.written.length)]! : this.idOfRank(rank()));
  }

  shelfSampler(random: Random): () => number[] {
    const rank = zipfSampler(SHELVES, 1, random);
    return () => this.shelves[rank() - 1]!;
  }

  /** A list page and its size, early pages first. */
  pageSampler(random: Random): () => { page: number; count: number } {
    const samplers = LIST_COUNTS.map((count) => ({ count, page: zipfSampler(Math.ceil(this.products / count), 1, random) }));
    return () => {
      const { count, page } = samplers[Math.floor(random() * samplers.length)]!;
      return { count, page: page() };
    };
  }
}

const restProductRead = (id: number, headers: Record<string, string>): PlannedRead => ({
  request: { label: 'REST /products/:id', method: 'GET', path: `/products/${id}`, headers },
  subject: id,
  observe: (body) => [observe(id, body as ProductJson)],
});

/** What one reader asks for. */
interface ReaderChoices {
  product: () => number;
  shelf: () => number[];
  page: () => { page: number; count: number };
}

function planRead(random: Random, choose: ReaderChoices): PlannedRead {
  const acceptEncoding = ACCEPT_ENCODINGS[Math.floor(random() * ACCEPT_ENCODINGS.length)]!;
  const encodingHeaders: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
  const choice = random();
  if (choice < 0.45) return restProductRead(choose.product(), encodingHeaders);
  if (choice < 0.6) {
    const { page, count } = choose.page();
    return {
      request: { label: 'REST /products?page', method: 'GET', path: `/products?page=${page}&count=${count}`, headers: encodingHeaders },
      subject: (page - 1) * count + 1,
      observe: (body) => (body as ProductJson[]).map((item) => ({ product: Number(item.id), slogan: item.slogan })),
    };
  }
  if (choice < 0.85) {
    const id = choose.product();
    const variables = { id: String(id) };
    const request =
      choice < 0.75
        ? graphqlPost('GraphQL product', PRODUCT_QUERY, variables, encodingHeaders)
        : graphqlGet('GraphQL product', PRODUCT_QUERY, variables, acceptEncoding);
    return { request, subject: id, observe: (body) => [observe(id, (body as { data: { product: ProductJson | null } }).data.product)] };
  }
  const ids = choose.shelf();
  const variables = { ids: ids.map(String) };
  const request =
    choice < 0.95
      ? graphqlPost('GraphQL productsByIds', PRODUCTS_BY_IDS_QUERY, variables, encodingHeaders)
      : graphqlGet('GraphQL productsByIds', PRODUCTS_BY_IDS_QUERY, variables, acceptEncoding);
  return {
    request,
    subject: ids[0]!,
    observe: (body) => {
      const found = (body as { data: { productsByIds: (ProductJson | null)[] } }).data.productsByIds;
      return ids.map((product, index) => observe(product, found[index]));
    },
  };
}

function planWrite(
  random: Random,
  product: number,
  slogan: string,
  writeToken: string,
): { request: PlannedRequest; confirms(body: unknown): boolean } {
  const authorization = { authorization: `Bearer ${writeToken}` };
  if (random() < 0.15) {
    return {
      request: graphqlPost('GraphQL updateProduct', UPDATE_MUTATION, { id: String(product), slogan }, authorization),
      confirms: (body) => (body as { data?: { updateProduct?: ProductJson } }).data?.updateProduct?.slogan === slogan,
    };
  }
  return {
    request: {
      label: 'REST PUT /products/:id',
      method: 'PUT',
      path: `/products/${product}`,
      headers: { 'content-type': 'application/json', ...authorization },
      body: JSON.stringify({ slogan }),
    },
    confirms: () => true,
  };
}

/** The products a 2xx answer shows; one that is not the shape asked for shows its subject missing. */
function observeAnswer(read: PlannedRead, body: unknown): Observation[] {
  try {
    return read.observe(body);
  } catch {
    return [{ product: read.subject, slogan: null }];
  }
}

const pickGateway = (random: Random, gateways: readonly Endpoint[]) => gateways[Math.floor(random() * gateways.length)]!;

async function writer(index: number, options: WorkloadOptions, popularity: Popularity, random: Random, signal: AbortSignal): Promise<void> {
  const client = `writer-${index}`;
  const owned = popularity.ownedBy(index, writerCount(options));
  const versions = new Map(owned.map((product) => [product, 0]));
  /** Writes the next version of `product` through a random gateway and records it; returns its outcome. */
  const write = async (product: number): Promise<{ outcome: Outcome; acknowledged: boolean }> => {
    const version = versions.get(product)! + 1;
    versions.set(product, version);
    const slogan = versionedSlogan(product, version, `${client} of ${options.run}`);
    const { request, confirms } = planWrite(random, product, slogan, options.writeToken);
    const gateway = pickGateway(random, options.gateways);
    const start = now();
    const { outcome, body } = await send(gateway, request);
    const acknowledged = isSuccess(outcome) && confirms(body);
    const { label, method, path } = request;
    options.recorder.record({
      kind: 'write',
      client,
      gateway: gateway.name,
      label,
      path: `${method} ${path}`,
      start,
      end: now(),
      outcome,
      product,
      version,
      slogan,
      acknowledged,
    });
    return { outcome, acknowledged };
  };
  while (!signal.aborted) {
    const product = owned[Math.floor(random() * owned.length)]!;
    const { outcome, acknowledged } = await write(product);
    if (acknowledged && random() < READ_AROUND_SAVES_SHARE) {
      // Saved again at once, a page loading between the two saves: its read misses (the first save
      // voided the entry) and reads the row before the second commits; the page loaded after the
      // second save's 200 must show it.
      const page = pickGateway(random, options.gateways);
      const loading = recordRead(options.recorder, client, page, restProductRead(product, {}));
      await sleep(uniformInt(random, ...SECOND_SAVE_AFTER_MS));
      if ((await write(product)).acknowledged) await recordRead(options.recorder, client, page, restProductRead(product, {}));
      await loading;
    }
    const [shortest, longest] = options.writePauseMs ?? SHOP_WRITE_PAUSE_MS;
    await sleep(typeof outcome === 'number' ? uniformInt(random, shortest, longest) : PAUSE_AFTER_FAILURE_MS);
  }
}

async function reader(index: number, options: WorkloadOptions, popularity: Popularity, random: Random, signal: AbortSignal): Promise<void> {
  const client = `reader-${index}`;
  const choose = {
    product: popularity.productSampler(random),
    shelf: popularity.shelfSampler(random),
    page: popularity.pageSampler(random),
  };
  const endpoints = [...options.gateways, ...(options.readVia ?? [])];
  while (!signal.aborted) {
    const outcome = await recordRead(options.recorder, client, pickGateway(random, endpoints), planRead(random, choose));
    if (typeof outcome !== 'number') await sleep(PAUSE_AFTER_FAILURE_MS);
  }
}

/** Makes `read` through `gateway` and records it. */
async function recordRead(recorder: HistoryRecorder, client: string, gateway: Endpoint, read: PlannedRead): Promise<Outcome> {
  const start = now();
  const { outcome, body } = await send(gateway, read.request);
  const end = now();
  const { label, method, path } = read.request;
  const observed = isSuccess(outcome) ? observeAnswer(read, body) : [];
  recorder.record({ kind: 'read', client, gateway: gateway.name, label, path: `${method} ${path}`, start, end, outcome, observed });
  return outcome;
}

/** Reads each of `products` once through `gateway` by REST, one after another, recorded as `client`. */
export async function readBack(recorder: HistoryRecorder, client: string, gateway: Endpoint, products: Iterable<number>): Promise<void> {
  for (const product of products) await recordRead(recorder, client, gateway, restProductRead(product, {}));
}

/** Writers of both kinds: each owns a share of the written products (gateway writers first). */
const writerCount = (options: WorkloadOptions): number => options.writers + (options.sql?.writers ?? 0);

/** Runs every writer and reader until `signal` aborts; resolves once the last request in flight is recorded. */
export async function runWorkload(options: WorkloadOptions, signal: AbortSignal): Promise<void> {
  const popularity = new Popularity(options.products, options.random);
  const clientRandom = () => seededRandom(Math.floor(options.random() * 2 ** 31));
  const sql = options.sql;
  await Promise.all([
    ...Array.from({ length: options.writers }, (_, index) => writer(index, options, popularity, clientRandom(), signal)),
    ...Array.from({ length: options.readers }, (_, index) => reader(index, options, popularity, clientRandom(), signal)),
    ...Array.from({ length: sql?.writers ?? 0 }, (_, index) =>
      sqlWriter(
        `sql-writer-${index}`,
        popularity.ownedBy(options.writers + index, writerCount(options)),
        { databaseUrl: sql!.databaseUrl, run: options.run, recorder: options.recorder },
        clientRandom(),
        signal,
      ),
    ),
  ]);
}
