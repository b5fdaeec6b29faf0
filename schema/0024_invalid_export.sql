-- An exported model the ONNX checker refuses is its own outcome class, invalid_export (the
-- converter wrote a model ONNX forbids), apart from conversion_failure (torch.onnx.export raised).
-- Rows stored before were all conversion_failure; the ones with a model file are the refusals:
-- an export that raised leaves no file (the worker removes a half-written one), but for the one
-- export failure the worker finds in a written model, its inputs or outputs differing from the
-- torch model's, which stays a conversion failure. Their groups follow.
UPDATE campaign_models SET outcome = 'invalid_export'
  WHERE outcome = 'conversion_failure' AND model_sha256 IS NOT NULL
    AND COALESCE(message, '') NOT LIKE 'exported graph''s inputs or outputs differ%';
UPDATE campaign_groups SET outcome = 'invalid_export'
  WHERE outcome = 'conversion_failure' AND id IN (
    SELECT group_id FROM campaign_models
    WHERE outcome = 'invalid_export' AND group_id IS NOT NULL);
