-- The capture triggers (capture.sql) on the catalog tables of the schema first in search_path.
-- Created when a schema is swapped into service, never on a schema being bulk-loaded: a COPY
-- of millions of rows pays no trigger. Idempotent (CREATE OR REPLACE TRIGGER, Postgres 14+).
DO $$
DECLARE
  -- Each table, and the column naming the owner of its rows (record_change's argument).
  owners CONSTANT text[][] := ARRAY[['products', 'id'], ['features', 'product_id'], ['styles', 'product_id'],
                                   ['related', 'product_id'], ['photos', 'style_id'], ['skus', 'style_id']];
  catalog_table text;
  owner_column text;
BEGIN
  FOR i IN 1 .. array_length(owners, 1) LOOP
    catalog_table := owners[i][1];
    owner_column := owners[i][2];
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_insert AFTER INSERT ON %I.%I REFERENCING NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change(%L)', current_schema(), catalog_table, owner_column);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_update AFTER UPDATE ON %I.%I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change(%L)', current_schema(), catalog_table, owner_column);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_delete AFTER DELETE ON %I.%I REFERENCING OLD TABLE AS old_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change(%L)', current_schema(), catalog_table, owner_column);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_truncate AFTER TRUNCATE ON %I.%I
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change(%L)', current_schema(), catalog_table, owner_column);
    -- In replica mode (logical replication's apply, session_replication_role = replica) only
    -- triggers enabled for it fire, and the apply process fires row triggers only: these record
    -- what the ones above would, row by row, and only then.
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_replicated_row AFTER INSERT OR UPDATE OR DELETE ON %I.%I
                    FOR EACH ROW EXECUTE FUNCTION catalog_capture.record_row_change(%L)', current_schema(), catalog_table, owner_column);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_replicated_truncate AFTER TRUNCATE ON %I.%I
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change(%L)', current_schema(), catalog_table, owner_column);
    EXECUTE format('ALTER TABLE %I.%I ENABLE REPLICA TRIGGER capture_replicated_row', current_schema(), catalog_table);
    EXECUTE format('ALTER TABLE %I.%I ENABLE REPLICA TRIGGER capture_replicated_truncate', current_schema(), catalog_table);
  END LOOP;
END $$;
