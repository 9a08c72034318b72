CREATE TABLE "call_counts" (
	"user_id" integer NOT NULL,
	"status" text NOT NULL,
	"type" text NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "call_counts_user_id_status_type_pk" PRIMARY KEY("user_id","status","type")
);
--> statement-breakpoint
ALTER TABLE "call_counts" ADD CONSTRAINT "call_counts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- call_counts follows every change of a call's user, status or type, in the same transaction.
-- An update touches the two counter rows in a fixed (key) order, so concurrent transitions
-- cannot deadlock on them; a decrement is a plain UPDATE (never an insert), so deleting a user,
-- which cascades to both tables, never re-creates a counter row.
CREATE OR REPLACE FUNCTION switchboard_call_counts_add(p_user integer, p_status text, p_type text, p_delta integer) RETURNS void AS $$
BEGIN
  IF p_delta > 0 THEN
    INSERT INTO call_counts AS c (user_id, status, type, n) VALUES (p_user, p_status, p_type, p_delta)
    ON CONFLICT (user_id, status, type) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    UPDATE call_counts SET n = n + p_delta WHERE user_id = p_user AND status = p_status AND type = p_type;
  END IF;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION switchboard_call_counts() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM switchboard_call_counts_add(NEW.user_id, NEW.status, NEW.type, 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM switchboard_call_counts_add(OLD.user_id, OLD.status, OLD.type, -1);
  ELSIF (OLD.user_id, OLD.status, OLD.type) < (NEW.user_id, NEW.status, NEW.type) THEN
    PERFORM switchboard_call_counts_add(OLD.user_id, OLD.status, OLD.type, -1);
    PERFORM switchboard_call_counts_add(NEW.user_id, NEW.status, NEW.type, 1);
  ELSE
    PERFORM switchboard_call_counts_add(NEW.user_id, NEW.status, NEW.type, 1);
    PERFORM switchboard_call_counts_add(OLD.user_id, OLD.status, OLD.type, -1);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER calls_counts_insert AFTER INSERT ON calls FOR EACH ROW EXECUTE FUNCTION switchboard_call_counts();
--> statement-breakpoint
CREATE TRIGGER calls_counts_delete AFTER DELETE ON calls FOR EACH ROW EXECUTE FUNCTION switchboard_call_counts();
--> statement-breakpoint
CREATE TRIGGER calls_counts_update AFTER UPDATE OF user_id, status, type ON calls
  FOR EACH ROW
  WHEN ((OLD.user_id, OLD.status, OLD.type) IS DISTINCT FROM (NEW.user_id, NEW.status, NEW.type))
  EXECUTE FUNCTION switchboard_call_counts();
--> statement-breakpoint
INSERT INTO call_counts (user_id, status, type, n)
SELECT user_id, status, type, count(*) FROM calls GROUP BY user_id, status, type;
