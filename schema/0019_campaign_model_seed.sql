-- A model's seed and family as columns (campaign/store/campaign_store writes them), instead of parsing
-- "synthetic-n30-s17" back out of its name: the seed of a synthetic model (minimisation rebuilds
-- it from there) and of a real architecture's weights; the family of a real one (classification,
-- detection, segmentation, video, optical_flow, audio, text) for the per-family tables.
ALTER TABLE campaign_models ADD COLUMN seed INTEGER;
ALTER TABLE campaign_models ADD COLUMN family TEXT;
UPDATE campaign_models SET seed = CAST(substr(name, instr(name, '-s') + 2) AS INTEGER)
  WHERE source = 'synthetic' AND name GLOB 'synthetic-n*-s*';
