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
