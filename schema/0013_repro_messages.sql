-- What people read of a repro run (the signature stays for grouping): the error as the failing
-- part said it (ONNX checker, ONNX Runtime, the script's exception "Type: message"), and for
-- script runs the first lines of the Python traceback. Both multi-line, cut (2,000 and 4,000
-- bytes) and with control characters escaped by repro/verdict_store, the one writer. NULL on
-- runs stored before this migration and when there is nothing to say.
ALTER TABLE repro_runs ADD COLUMN message TEXT;
ALTER TABLE repro_runs ADD COLUMN traceback TEXT;
