-- Keys and the indexes the gateway's read paths need, built after the bulk load.
ALTER TABLE products ADD PRIMARY KEY (id);
ALTER TABLE features ADD PRIMARY KEY (id);
ALTER TABLE styles   ADD PRIMARY KEY (id);
ALTER TABLE photos   ADD PRIMARY KEY (id);
ALTER TABLE skus     ADD PRIMARY KEY (id);
ALTER TABLE related  ADD PRIMARY KEY (id);

ALTER TABLE features ADD FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE;
ALTER TABLE styles   ADD FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE;
ALTER TABLE photos   ADD FOREIGN KEY (style_id)   REFERENCES styles (id)   ON DELETE CASCADE;
ALTER TABLE skus     ADD FOREIGN KEY (style_id)   REFERENCES styles (id)   ON DELETE CASCADE;
ALTER TABLE related  ADD FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE;
ALTER TABLE related  ADD FOREIGN KEY (related_product_id) REFERENCES products (id) ON DELETE CASCADE;

CREATE INDEX features_product_id_idx ON features (product_id);
CREATE INDEX styles_product_id_idx   ON styles (product_id);
CREATE INDEX photos_style_id_idx     ON photos (style_id);
CREATE INDEX skus_style_id_idx       ON skus (style_id);
CREATE INDEX related_product_id_idx  ON related (product_id);
CREATE INDEX related_related_product_id_idx ON related (related_product_id);

-- Storefront listings (filter by category, sort by price, name or age, id breaking ties): each
-- sort key with id after it, alone and behind category, so a keyset page at any depth is one
-- index range scan. Prices sort by their numeric value (default_price is numeric).
CREATE INDEX products_category_id_idx            ON products (category, id);
CREATE INDEX products_default_price_id_idx       ON products (default_price, id);
CREATE INDEX products_category_default_price_idx ON products (category, default_price, id);
CREATE INDEX products_name_id_idx                ON products (name, id);
CREATE INDEX products_category_name_idx          ON products (category, name, id);
CREATE INDEX products_created_at_id_idx          ON products (created_at, id);
CREATE INDEX products_category_created_at_idx    ON products (category, created_at, id);
-- Name search: words of the name, built-in full-text search (no extension to install).
CREATE INDEX products_name_words_idx ON products USING gin (to_tsvector('simple', name));
