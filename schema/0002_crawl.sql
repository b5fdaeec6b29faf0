-- Crawler: the HTTP cache for conditional requests, and the crawl state per repository and filter.

-- One row per URL fetched with a validator: the next request for the URL sends If-None-Match /
-- If-Modified-Since, and a 304 reuses body. Never holds request headers (no token).
CREATE TABLE http_cache (
  url            TEXT PRIMARY KEY,
  etag           TEXT,
  last_modified  TEXT,
  body           TEXT NOT NULL,
  next_url       TEXT,      -- the Link rel="next" of this page, for a 304 that omits the header
  stored_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- Where a crawl of a repository with a given filter stands. filter_key is the canonical text of
-- the filter (state, labels, excluded labels, comments/timeline switches).
CREATE TABLE crawl_state (
  id               INTEGER PRIMARY KEY,
  repo_id          INTEGER NOT NULL REFERENCES repositories(id),
  filter_key       TEXT NOT NULL,
  max_updated_at   TEXT,      -- the largest issue updated_at stored; the next run asks since= it
  next_url         TEXT,      -- resume cursor: the listing page to fetch next; NULL when complete
  pages_done       INTEGER NOT NULL DEFAULT 0,   -- listing pages stored, all runs
  issues_stored    INTEGER NOT NULL DEFAULT 0,   -- new or updated issues stored, all runs
  runs_completed   INTEGER NOT NULL DEFAULT 0,
  last_started_at  TEXT,
  last_finished_at TEXT,
  last_error       TEXT,      -- why the last run stopped early (never contains the token)
  UNIQUE (repo_id, filter_key)
);
