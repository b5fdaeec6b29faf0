-- Annotation sessions (convfail annotate / adjudicate): the queue of issues a session walks,
-- frozen when the session starts so that a killed session resumes on the same queue. Progress is
-- not stored here: it is replayed from the session's own rows in manual_labels
-- (source = 'annotate:<id>' or 'adjudicate:<id>'), so every answer is committed exactly once.
CREATE TABLE annotation_sessions (
  id          INTEGER PRIMARY KEY,
  annotator   TEXT NOT NULL,   -- who answers (the adjudicator for adjudicate)
  mode        TEXT NOT NULL,   -- annotate | adjudicate
  queue       TEXT NOT NULL,   -- unlabeled | low-confidence | disagreement | sample | disagreements
  params      TEXT NOT NULL,   -- canonical text of the options that built the queue
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX annotation_sessions_lookup ON annotation_sessions(annotator, mode, queue, params, id);

CREATE TABLE annotation_queue_items (
  session_id  INTEGER NOT NULL REFERENCES annotation_sessions(id),
  position    INTEGER NOT NULL,   -- 0-based order in the queue
  issue_id    INTEGER NOT NULL REFERENCES issues(id),
  dimensions  TEXT,               -- comma list of dimensions to ask; NULL = all (annotate)
  PRIMARY KEY (session_id, position)
) WITHOUT ROWID;

-- The current value of each (issue, annotator, dimension): the latest row; a skip clears it, an
-- undo restores the value it carries (NULL when there was none).
CREATE VIEW current_manual_labels AS
SELECT m.issue_id, m.annotator, m.dimension,
       CASE WHEN m.kind = 'skip' THEN NULL ELSE m.value END AS value,
       m.kind, m.note, m.created_at, m.id AS row_id
FROM manual_labels m
WHERE m.id = (SELECT max(m2.id) FROM manual_labels m2
              WHERE m2.issue_id = m.issue_id AND m2.annotator = m.annotator
                AND m2.dimension = m.dimension);
