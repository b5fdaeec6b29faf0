-- `import --truncate-long-fields`: bodies over --max-field-mb are stored cut, and flagged here
-- (1 = the stored body, and raw_json's "body", are the first --max-field-mb of the original).
ALTER TABLE issues ADD COLUMN body_truncated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE comments ADD COLUMN body_truncated INTEGER NOT NULL DEFAULT 0;
