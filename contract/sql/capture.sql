-- Change capture (gateway/README.md, "Consistency", rule 11): every committed change to the
-- catalog tables that did not come through a gateway is recorded here, in the same transaction
-- as the change, and announced with NOTIFY catalog_changed when no older entry waits; one
-- gateway claims each entry and invalidates every tier for the fleet. Its own schema, so a
-- catalog swap never takes the log with it. Idempotent: the loader applies it at every swap (and
-- on an unchanged run).

CREATE SCHEMA IF NOT EXISTS catalog_capture;

-- One entry per statement (not per row; per row only for changes applied in replica mode, see
-- record_row_change): the products it touched, whether list positions may have moved, or why
-- everything must be invalidated instead (the log overflowed, a TRUNCATE, a statement touching
-- more products than an entry carries).
CREATE TABLE IF NOT EXISTS catalog_capture.changes (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  product_ids  bigint[]    NOT NULL DEFAULT '{}',
  list_changed boolean     NOT NULL DEFAULT false,
  everything   text,
  recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Most entries waiting (catalog_capture.log_cap, default 100000): while no gateway consumes, a
-- statement that finds the log full replaces it with one entry that invalidates everything.
CREATE OR REPLACE FUNCTION catalog_capture.record(product_ids bigint[], list_changed boolean, everything text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  entry bigint;
  oldest bigint;
  cap bigint := coalesce(nullif(current_setting('catalog_capture.log_cap', true), '')::bigint, 100000);
BEGIN
  INSERT INTO catalog_capture.changes (product_ids, list_changed, everything)
    VALUES (product_ids, list_changed, everything) RETURNING id INTO entry;
  -- The oldest waiting entry is one index probe; the gap to it bounds how many wait.
  SELECT min(id) INTO oldest FROM catalog_capture.changes;
  IF entry - oldest >= cap THEN
    DELETE FROM catalog_capture.changes;
    INSERT INTO catalog_capture.changes (everything) VALUES (format('the change log overflowed (%s entries waiting)', cap));
    oldest := entry; -- nothing older waits any more
  END IF;
  -- Only a statement that found no older entry waiting wakes the claimers (the NOTIFY goes out
  -- at commit, once per transaction): Postgres serialises the commits of notifying transactions,
  -- so one per statement would queue concurrent writers behind each other. Behind an older entry
  -- a claimer was woken already, or is claiming; its run claims until the log is empty, and an
  -- entry committed after that run's last claim is the gateways' poll's (gateway/README.md, rule 11).
  IF oldest = entry THEN
    PERFORM pg_notify('catalog_changed', '');
  END IF;
END $$;

-- The products owning rows whose owner column held `ids`: the ids themselves, or for a photo's or
-- sku's style_id the style's product (NULL when none: a style deleted in the same statement's
-- cascade is gone here, but its own delete recorded its product).
CREATE OR REPLACE FUNCTION catalog_capture.owning_products(schema_name text, owner_column text, ids bigint[])
RETURNS bigint[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  products bigint[];
BEGIN
  IF owner_column <> 'style_id' OR ids IS NULL THEN
    RETURN ids;
  END IF;
  EXECUTE format('SELECT array_agg(DISTINCT product_id) FROM %I.styles WHERE id = ANY($1)', schema_name) INTO products USING ids;
  RETURN products;
END $$;

-- The products a statement on one catalog table touched. Statement-level with transition tables
-- (old_rows, new_rows): one entry per statement, however many rows it changed. TG_ARGV[0] is the
-- column naming each row's owner: a product's id, a feature's, style's or related row's
-- product_id, a photo's or sku's style_id (then mapped to the style's product). Writes made
-- through a gateway are announced by the gateway itself; its sessions say so in
-- catalog_capture.origin, and are skipped here so no change is announced twice (before anything in
-- this schema is touched: a gateway's role may have no rights on it).
CREATE OR REPLACE FUNCTION catalog_capture.record_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- Beyond this many products one entry becomes "everything": a bulk rewrite is a reload.
  most_products CONSTANT integer := 10000;
  owner_column CONSTANT text := TG_ARGV[0];
  ids bigint[];
  listed boolean := false;
BEGIN
  IF current_setting('catalog_capture.origin', true) = 'gateway' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM catalog_capture.record('{}', true, format('TRUNCATE of %s', TG_TABLE_NAME));
    RETURN NULL;
  END IF;
  -- Rows as jsonb, so one static query (planned once) reads the owner column of any table.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT (to_jsonb(r) ->> owner_column)::bigint) INTO ids FROM new_rows r;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT (to_jsonb(r) ->> owner_column)::bigint) INTO ids FROM old_rows r;
  ELSE
    SELECT array_agg(DISTINCT (touched.r ->> owner_column)::bigint) INTO ids
      FROM (SELECT to_jsonb(o) AS r FROM old_rows o UNION ALL SELECT to_jsonb(n) FROM new_rows n) touched;
  END IF;
  ids := catalog_capture.owning_products(TG_TABLE_SCHEMA, owner_column, ids);
  IF ids IS NULL THEN
    RETURN NULL; -- no row changed
  END IF;
  -- Ids appearing or disappearing, or a field lists filter or sort by, move list positions.
  IF TG_TABLE_NAME = 'products' AND TG_OP <> 'UPDATE' THEN
    listed := true;
  ELSIF TG_TABLE_NAME = 'products' THEN
    listed := EXISTS (
      SELECT 1 FROM old_rows o FULL JOIN new_rows n ON o.id = n.id
       WHERE o.id IS NULL OR n.id IS NULL
          OR o.name IS DISTINCT FROM n.name
          OR o.category IS DISTINCT FROM n.category
          OR o.default_price IS DISTINCT FROM n.default_price
          OR o.created_at IS DISTINCT FROM n.created_at);
  END IF;
  IF cardinality(ids) > most_products THEN
    PERFORM catalog_capture.record('{}', true, format('one statement changed %s products', cardinality(ids)));
  ELSE
    PERFORM catalog_capture.record(ids, listed, NULL);
  END IF;
  RETURN NULL;
END $$;

-- The same for one row, on triggers enabled in replica mode only (capture-triggers.sql): a
-- session with session_replication_role = replica fires no ordinary trigger, and that is how
-- logical replication applies a publisher's changes (a PIM publishing into the catalog), and
-- how replication and restore tools write; the apply process fires row triggers only.
CREATE OR REPLACE FUNCTION catalog_capture.record_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  owner_column CONSTANT text := TG_ARGV[0];
  ids bigint[];
  listed boolean := true;
BEGIN
  IF current_setting('catalog_capture.origin', true) = 'gateway' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    ids := ARRAY[(to_jsonb(NEW) ->> owner_column)::bigint];
  ELSIF TG_OP = 'DELETE' THEN
    ids := ARRAY[(to_jsonb(OLD) ->> owner_column)::bigint];
  ELSE
    ids := ARRAY(SELECT DISTINCT owner FROM unnest(ARRAY[(to_jsonb(OLD) ->> owner_column)::bigint,
                                                       (to_jsonb(NEW) ->> owner_column)::bigint]) AS owner);
  END IF;
  ids := catalog_capture.owning_products(TG_TABLE_SCHEMA, owner_column, ids);
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME <> 'products' THEN
    listed := false;
  ELSIF TG_OP = 'UPDATE' THEN
    listed := OLD.id IS DISTINCT FROM NEW.id OR OLD.name IS DISTINCT FROM NEW.name
           OR OLD.category IS DISTINCT FROM NEW.category OR OLD.default_price IS DISTINCT FROM NEW.default_price
           OR OLD.created_at IS DISTINCT FROM NEW.created_at;
  END IF;
  PERFORM catalog_capture.record(ids, listed, NULL);
  RETURN NULL;
END $$;
