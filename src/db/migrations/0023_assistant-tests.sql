CREATE TABLE "assistant_test_results" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"position" integer NOT NULL,
	"repeat" integer NOT NULL,
	"status" text NOT NULL,
	"end_status" text,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tool_requests" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"turns" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"assertions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assistant_test_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"assistant_id" integer NOT NULL,
	"assistant_version" integer,
	"overrides" jsonb,
	"scenarios" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"passed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"errored" integer DEFAULT 0 NOT NULL,
	"error" text,
	"owner_instance" text,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp(6) with time zone,
	"finished_at" timestamp(6) with time zone
);
--> statement-breakpoint
CREATE TABLE "assistant_test_scenarios" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"assistant_id" integer NOT NULL,
	"name" text NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "assistant_test_results" ADD CONSTRAINT "assistant_test_results_run_id_assistant_test_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."assistant_test_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_test_runs" ADD CONSTRAINT "assistant_test_runs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_test_runs" ADD CONSTRAINT "assistant_test_runs_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_test_scenarios" ADD CONSTRAINT "assistant_test_scenarios_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_test_scenarios" ADD CONSTRAINT "assistant_test_scenarios_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "assistant_test_results_run_position_idx" ON "assistant_test_results" USING btree ("run_id","position","repeat");--> statement-breakpoint
CREATE INDEX "assistant_test_runs_assistant_idx" ON "assistant_test_runs" USING btree ("assistant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "assistant_test_runs_live_idx" ON "assistant_test_runs" USING btree ("status") WHERE "assistant_test_runs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "assistant_test_scenarios_assistant_idx" ON "assistant_test_scenarios" USING btree ("assistant_id","id");