DROP INDEX "calls_user_status_created_idx";--> statement-breakpoint
DROP INDEX "calls_user_assistant_created_idx";--> statement-breakpoint
DROP INDEX "calls_user_campaign_created_idx";--> statement-breakpoint
DROP INDEX "calls_user_client_phone_idx";--> statement-breakpoint
CREATE INDEX "calls_user_status_created_idx" ON "calls" USING btree ("user_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_assistant_created_idx" ON "calls" USING btree ("user_id","assistant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_campaign_created_idx" ON "calls" USING btree ("user_id","campaign_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_client_phone_idx" ON "calls" USING btree ("user_id","client_phone_number","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);