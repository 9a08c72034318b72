CREATE TABLE "call_turns" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "call_turns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"call_id" integer NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"started_at" timestamp(6) with time zone NOT NULL,
	"caller_text" text,
	"assistant_text" text DEFAULT '' NOT NULL,
	"interrupted" boolean DEFAULT false NOT NULL,
	"final_transcript_ms" integer,
	"llm_first_token_ms" integer,
	"tts_first_byte_ms" integer,
	"first_audio_ms" integer,
	"barge_ins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fillers" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_turns" ADD CONSTRAINT "call_turns_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_turns_call_position_idx" ON "call_turns" USING btree ("call_id","position");