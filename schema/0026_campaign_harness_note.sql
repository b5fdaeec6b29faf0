-- How the harness ran a model when not as exported (campaign/store/campaign_store writes it): e.g.
-- "float16 inputs x and outputs y fed and read as float32 through Cast nodes at the model's
-- boundary (ONNX Runtime 1.14.0's Node binding holds no float16), compared as float16"; NULL when
-- it ran as exported. campaign_models.outcome gains not_run (campaign/outcomes.h): what the harness
-- could not run, its reason in message.
ALTER TABLE campaign_models ADD COLUMN harness_note TEXT;
