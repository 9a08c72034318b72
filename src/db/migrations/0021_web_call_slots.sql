ALTER TABLE "web_call_tokens" ADD COLUMN "spent_at" timestamp(6) with time zone;--> statement-breakpoint
ALTER TABLE "web_call_tokens" ADD COLUMN "widget_key_id" integer;--> statement-breakpoint
ALTER TABLE "web_call_tokens" ADD COLUMN "visitor" text;--> statement-breakpoint
ALTER TABLE "web_call_tokens" ADD CONSTRAINT "web_call_tokens_widget_key_id_widget_keys_id_fk" FOREIGN KEY ("widget_key_id") REFERENCES "public"."widget_keys"("id") ON DELETE set null ON UPDATE no action;