-- What the campaign report counts without a rerun (campaign/store/campaign_store writes them): for a
-- compared model (success, mismatch) the smallest t at which every comparison passes with
-- atol = rtol = t (the runner's largest |a - e| / (1 + |e|); 1e308 when no t does: a non-finite
-- value on one side, a shape or type difference) and the kind of difference that needs it; for a
-- synthetic model the tensor types it uses (its spec's inputs and nodes).
ALTER TABLE campaign_models ADD COLUMN min_tolerance REAL;    -- NULL: not compared, or not known
ALTER TABLE campaign_models ADD COLUMN difference_kind TEXT;  -- integer output, non-finite value, ...
ALTER TABLE campaign_models ADD COLUMN dtypes_json TEXT;      -- ["float32","int16"]; NULL: not said
