CREATE TABLE "api_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"revoked_at" timestamp(6) with time zone,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assistant_tools" (
	"assistant_id" integer NOT NULL,
	"tool_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "assistant_tools_assistant_id_tool_id_pk" PRIMARY KEY("assistant_id","tool_id")
);
--> statement-breakpoint
CREATE TABLE "assistants" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"uuid" uuid DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"mode" text DEFAULT 'pipeline' NOT NULL,
	"phone_number_id" integer,
	"engine_id" integer,
	"synthesizer_id" integer,
	"transcriber_id" integer,
	"voice_id" integer NOT NULL,
	"instance_id" integer DEFAULT 1 NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"post_call_evaluation" boolean DEFAULT true NOT NULL,
	"fillers" boolean DEFAULT false NOT NULL,
	"post_call_schema" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"end_call_tool_description" text,
	"is_webhook_active" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"inbound_webhook_url" text,
	"language" text,
	"language_id" integer,
	"llm_model_id" integer,
	"multimodal_model_id" integer,
	"transcriber_provider_id" integer,
	"synthesizer_provider_id" integer,
	"max_duration" integer DEFAULT 600 NOT NULL,
	"record" boolean DEFAULT false NOT NULL,
	"initial_message" text DEFAULT '' NOT NULL,
	"system_prompt" text DEFAULT '' NOT NULL,
	"flows_platform_id" integer,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"max_silence_duration" integer DEFAULT 40 NOT NULL,
	"reengagement_interval" integer DEFAULT 30 NOT NULL,
	"end_call_on_voicemail" boolean DEFAULT false NOT NULL,
	"llm_temperature" numeric(4, 2) DEFAULT '0.10' NOT NULL,
	"voice_stability" numeric(4, 2) DEFAULT '0.70' NOT NULL,
	"voice_similarity" numeric(4, 2) DEFAULT '0.50' NOT NULL,
	"speech_speed" numeric(4, 2) DEFAULT '1.00' NOT NULL,
	"ambient_sound_volume" numeric(4, 2) DEFAULT '0.50' NOT NULL,
	"allow_interruptions" boolean DEFAULT true NOT NULL,
	"enable_noise_cancellation" boolean DEFAULT false NOT NULL,
	"endpoint_sensitivity" numeric(4, 2) DEFAULT '0.50' NOT NULL,
	"interrupt_sensitivity" numeric(4, 2) DEFAULT '0.50' NOT NULL,
	"endpoint_type" text DEFAULT 'vad' NOT NULL,
	"wait_for_customer" boolean DEFAULT false NOT NULL,
	"ambient_sound" text DEFAULT 'none' NOT NULL,
	"send_webhook_only_on_completed" boolean DEFAULT true NOT NULL,
	"include_recording_in_webhook" boolean DEFAULT true NOT NULL,
	"filler_config" jsonb DEFAULT '{"neutral":[],"negative":[],"positive":[],"question":[]}'::jsonb NOT NULL,
	"knowledgebase_id" integer,
	"knowledgebase_mode" text DEFAULT 'function_call' NOT NULL,
	"min_interrupt_words" integer DEFAULT 0 NOT NULL,
	"widget_settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deleted_at" timestamp(6) with time zone,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calls" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"assistant_id" integer,
	"assistant_name" text NOT NULL,
	"campaign_id" integer,
	"campaign_name" text,
	"lead_id" integer,
	"secondary_contact_id" integer,
	"type" text NOT NULL,
	"status" text DEFAULT 'initiated' NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"assistant_phone_number" text DEFAULT '' NOT NULL,
	"client_phone_number" text NOT NULL,
	"transcript" text DEFAULT '' NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"evaluation" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"webhook_response" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"carrier_cost" numeric(16, 8) DEFAULT '0' NOT NULL,
	"total_cost" numeric(16, 8) DEFAULT '0' NOT NULL,
	"answered_by" text DEFAULT 'unknown' NOT NULL,
	"recording_url" text,
	"owner_instance" text,
	"answered_at" timestamp(6) with time zone,
	"ended_at" timestamp(6) with time zone,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"assistant_id" integer NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"timezone" text NOT NULL,
	"max_calls_in_parallel" integer DEFAULT 3 NOT NULL,
	"allowed_hours_start_time" text DEFAULT '00:00' NOT NULL,
	"allowed_hours_end_time" text DEFAULT '23:59' NOT NULL,
	"allowed_days" jsonb DEFAULT '["monday","tuesday","wednesday","thursday","friday","saturday","sunday"]'::jsonb NOT NULL,
	"max_retries" integer DEFAULT 3 NOT NULL,
	"retry_interval" integer DEFAULT 60 NOT NULL,
	"retry_on_voicemail" boolean DEFAULT false NOT NULL,
	"retry_on_goal_incomplete" boolean DEFAULT false NOT NULL,
	"goal_completion_variable" text,
	"mark_complete_when_no_leads" boolean DEFAULT true NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "languages" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"iso_2" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leads" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"campaign_id" integer NOT NULL,
	"phone_number" text NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp(6) with time zone,
	"current_call_id" integer,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "llm_models" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"phone_number" text NOT NULL,
	"country_code" text NOT NULL,
	"type_label" text NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secondary_contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"lead_id" integer NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"phone_number" text NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "system_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tools" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"endpoint" text NOT NULL,
	"method" text NOT NULL,
	"timeout" integer DEFAULT 10 NOT NULL,
	"headers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"schema" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"max_tools" integer DEFAULT 5 NOT NULL,
	"max_calls_in_parallel" integer DEFAULT 10 NOT NULL,
	"webhook_secret" text NOT NULL,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "voices" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"mode" text NOT NULL,
	"user_id" integer,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"call_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"message_id" text NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"duration_ms" integer,
	"error" text,
	"created_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_tools" ADD CONSTRAINT "assistant_tools_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_tools" ADD CONSTRAINT "assistant_tools_tool_id_tools_id_fk" FOREIGN KEY ("tool_id") REFERENCES "public"."tools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_voice_id_voices_id_fk" FOREIGN KEY ("voice_id") REFERENCES "public"."voices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_language_id_languages_id_fk" FOREIGN KEY ("language_id") REFERENCES "public"."languages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_llm_model_id_llm_models_id_fk" FOREIGN KEY ("llm_model_id") REFERENCES "public"."llm_models"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_secondary_contact_id_secondary_contacts_id_fk" FOREIGN KEY ("secondary_contact_id") REFERENCES "public"."secondary_contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secondary_contacts" ADD CONSTRAINT "secondary_contacts_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "voices" ADD CONSTRAINT "voices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_hash_unique" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_user_idx" ON "api_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "assistant_tools_tool_idx" ON "assistant_tools" USING btree ("tool_id");--> statement-breakpoint
CREATE INDEX "assistants_user_idx" ON "assistants" USING btree ("user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "assistants_inbound_number_unique" ON "assistants" USING btree ("phone_number_id") WHERE "assistants"."type" = 'inbound' and "assistants"."deleted_at" is null and "assistants"."phone_number_id" is not null;--> statement-breakpoint
CREATE INDEX "calls_user_created_idx" ON "calls" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_status_created_idx" ON "calls" USING btree ("user_id","status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_assistant_created_idx" ON "calls" USING btree ("user_id","assistant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_campaign_created_idx" ON "calls" USING btree ("user_id","campaign_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "calls_user_client_phone_idx" ON "calls" USING btree ("user_id","client_phone_number");--> statement-breakpoint
CREATE INDEX "calls_live_idx" ON "calls" USING btree ("status") WHERE "calls"."status" in ('initiated', 'ringing', 'in-progress');--> statement-breakpoint
CREATE INDEX "calls_lead_idx" ON "calls" USING btree ("lead_id");--> statement-breakpoint
CREATE INDEX "campaigns_user_idx" ON "campaigns" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "campaigns_status_idx" ON "campaigns" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "languages_name_unique" ON "languages" USING btree ("name");--> statement-breakpoint
CREATE INDEX "leads_user_idx" ON "leads" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "leads_campaign_due_idx" ON "leads" USING btree ("campaign_id","status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "leads_campaign_phone_idx" ON "leads" USING btree ("campaign_id","phone_number");--> statement-breakpoint
CREATE UNIQUE INDEX "llm_models_name_unique" ON "llm_models" USING btree ("name");--> statement-breakpoint
CREATE INDEX "phone_numbers_user_idx" ON "phone_numbers" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "secondary_contacts_lead_idx" ON "secondary_contacts" USING btree ("lead_id","position");--> statement-breakpoint
CREATE INDEX "tools_user_idx" ON "tools" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "voices_user_idx" ON "voices" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_call_idx" ON "webhook_deliveries" USING btree ("call_id","id");