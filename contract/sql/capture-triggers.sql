-- The capture triggers (capture.sql) on the catalog tables of the schema first in search_path.
-- Created when a schema is swapped into service, never on a schema being bulk-loaded: a COPY
-- of millions of rows pays no trigger. Idempotent (CREATE OR REPLACE TRIGGER, Postgres 14+).
DO $$
DECLARE
  catalog_table text;
BEGIN
  FOREACH catalog_table IN ARRAY ARRAY['products', 'features', 'styles', 'photos', 'skus', 'related'] LOOP
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_insert AFTER INSERT ON %I.%I REFERENCING NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change()', current_schema(), catalog_table);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_update AFTER UPDATE ON %I.%I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change()', current_schema(), catalog_table);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_delete AFTER DELETE ON %I.%I REFERENCING OLD TABLE AS old_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change()', current_schema(), catalog_table);
    EXECUTE format('CREATE OR REPLACE TRIGGER capture_truncate AFTER TRUNCATE ON %I.%I
                    FOR EACH STATEMENT EXECUTE FUNCTION catalog_capture.record_change()', current_schema(), catalog_table);
  END LOOP;
END $$;
