CREATE TABLE "web_call_tokens" (
	"call_id" integer PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"mode" text NOT NULL,
	"expires_at" timestamp(6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "widget_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"assistant_id" integer NOT NULL,
	"key" text NOT NULL,
	"allowed_origins" jsonb NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp(6) with time zone
);
--> statement-breakpoint
ALTER TABLE "web_call_tokens" ADD CONSTRAINT "web_call_tokens_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "widget_keys_key_unique" ON "widget_keys" USING btree ("key");--> statement-breakpoint
CREATE INDEX "widget_keys_assistant_idx" ON "widget_keys" USING btree ("assistant_id");