CREATE TABLE "carrier_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"carrier" text NOT NULL,
	"account_sid" text NOT NULL,
	"api_key_sid" text,
	"sealed_secrets" text NOT NULL,
	"secret_hint" text NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "carrier" text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "carrier_call_sid" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "media_token_hash" text;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "carrier" text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "carrier_sid" text;--> statement-breakpoint
ALTER TABLE "carrier_accounts" ADD CONSTRAINT "carrier_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "carrier_accounts_user_carrier_unique" ON "carrier_accounts" USING btree ("user_id","carrier");--> statement-breakpoint
CREATE INDEX "calls_carrier_call_sid_idx" ON "calls" USING btree ("carrier_call_sid") WHERE "calls"."carrier_call_sid" is not null;