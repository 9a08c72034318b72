-- Fold the 16 counter shards back into shard 0 (src/calls/call-counts.ts runs this every
-- minute). Shards keep concurrent writers of one user's calls off a single row lock, but every
-- list total sums all of them: about 300 rows per user once a user's calls spread over the
-- shards, 0.2 ms of database CPU per first page against 0.03 ms for one row per (status, type).
--
-- A counter row can now disappear under a writer (the fold deletes it), so adding to a row
-- that is gone inserts it again, also for a negative delta: a shard may hold a negative count;
-- only the sum over a user's rows means anything.
CREATE OR REPLACE FUNCTION switchboard_call_counts_add(p_user integer, p_status text, p_type text, p_shard smallint, p_delta integer) RETURNS void AS $$
BEGIN
  UPDATE call_counts SET n = n + p_delta WHERE user_id = p_user AND status = p_status AND type = p_type AND shard = p_shard;
  -- (Not when the user is being deleted: the cascade removes their counters before their calls.)
  IF NOT FOUND AND EXISTS (SELECT 1 FROM users WHERE id = p_user) THEN
    INSERT INTO call_counts AS c (user_id, status, type, shard, n) VALUES (p_user, p_status, p_type, p_shard, p_delta)
    ON CONFLICT (user_id, status, type, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- The rows a fold looks for, without reading the folded ones: shard 0 holds almost every row
-- once folded, and counter updates stay HOT (neither column changes).
CREATE INDEX "call_counts_unfolded_idx" ON "call_counts" USING btree ("user_id") WHERE "call_counts"."shard" <> 0;--> statement-breakpoint
-- Moves what it can into shard 0 and drops shard-0 rows left at zero; returns the number of
-- shard rows moved. It never waits for a writer: rows locked by a transaction in flight are
-- skipped (SKIP LOCKED) and folded next time; where it would still wait (a shard-0 row a writer
-- holds), it gives up after lock_timeout, well before PostgreSQL's deadlock check (1 s by
-- default) could pick a writer as the victim. Several instances may run it at once.
CREATE OR REPLACE FUNCTION switchboard_call_counts_fold() RETURNS integer AS $$
DECLARE
  moved integer;
  touched integer[];
BEGIN
  SET LOCAL lock_timeout = '100ms';
  WITH src AS (
    SELECT ctid FROM call_counts WHERE shard <> 0 FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM call_counts c USING src WHERE c.ctid = src.ctid
    RETURNING c.user_id, c.status, c.type, c.n
  ), folded AS (
    -- Runs to completion although nothing reads it, as every data-modifying WITH does.
    INSERT INTO call_counts AS c (user_id, status, type, shard, n)
    SELECT user_id, status, type, 0, sum(n)::bigint FROM gone GROUP BY 1, 2, 3
    ON CONFLICT (user_id, status, type, shard) DO UPDATE SET n = c.n + EXCLUDED.n
  )
  SELECT count(*), array_agg(DISTINCT user_id) INTO moved, touched FROM gone;
  -- Calls pass through initiated, ringing and in-progress: those counters end at zero.
  DELETE FROM call_counts c USING (
    SELECT ctid FROM call_counts WHERE user_id = ANY (touched) AND shard = 0 AND n = 0 FOR UPDATE SKIP LOCKED
  ) z WHERE c.ctid = z.ctid;
  RETURN moved;
END;
$$ LANGUAGE plpgsql;
