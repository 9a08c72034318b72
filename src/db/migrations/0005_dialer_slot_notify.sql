-- The dialer's "a slot freed" signal (src/dialer): when a live call reaches a final status,
-- every service instance LISTENing on `switchboard_call_slot` learns the call's user and may
-- dial the next lead at once instead of waiting for its periodic sweep. Delivered on commit;
-- best effort only (the durable "call finished" event and the sweep remain the source of truth).
CREATE OR REPLACE FUNCTION switchboard_notify_call_slot() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('switchboard_call_slot', NEW.user_id::text || ':' || coalesce(NEW.campaign_id::text, ''));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER calls_slot_freed_notify
  AFTER UPDATE OF status ON calls
  FOR EACH ROW
  WHEN (OLD.status IN ('initiated', 'ringing', 'in-progress') AND NEW.status NOT IN ('initiated', 'ringing', 'in-progress'))
  EXECUTE FUNCTION switchboard_notify_call_slot();
