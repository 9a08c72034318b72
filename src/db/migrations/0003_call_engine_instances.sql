CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"heartbeat_at" timestamp(6) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp(6) with time zone DEFAULT now() NOT NULL
);
