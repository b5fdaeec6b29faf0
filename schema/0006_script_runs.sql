-- Re-runs of PyTorch repro scripts (`convfail reproduce --scripts`) are repro_runs rows too; these
-- columns say which program ran. NULL on rows of attached models.
ALTER TABLE repro_runs ADD COLUMN script_source TEXT;  -- body | comments (| none: no code): where its code blocks came from
ALTER TABLE repro_runs ADD COLUMN script_sha256 TEXT;  -- of the joined program that ran
CREATE INDEX repro_runs_script ON repro_runs(script_source) WHERE script_source IS NOT NULL;
