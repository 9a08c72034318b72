-- A number may belong to one account only. Rows that break this are never removed here (that
-- would drop someone's number and detach their assistants); the migration stops with a message
-- naming them; an operator settles which account keeps each (DELETE the other rows by id).
DO $$
DECLARE dups text;
BEGIN
  SELECT string_agg(format('%s (ids %s)', phone_number, ids), ', ') INTO dups
  FROM (SELECT phone_number, string_agg(id::text, ', ' ORDER BY id) AS ids
        FROM phone_numbers GROUP BY phone_number HAVING count(*) > 1) d;
  IF dups IS NOT NULL THEN
    RAISE EXCEPTION 'phone numbers held twice: %; delete the rows of the accounts that should not keep them (DELETE FROM phone_numbers WHERE id IN (...)) and start again', dups;
  END IF;
END $$;--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_number_unique" ON "phone_numbers" USING btree ("phone_number");
